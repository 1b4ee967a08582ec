#if PostgreSQL
    import PostgreSQL
    import SQLRecords
    import SQLite

    /// `sqlq import` on a PostgreSQL server: the records of the import readers, checked against
    /// the catalog's columns as on SQLite, then inserted in one transaction, all or nothing.
    ///
    /// Each value is bound as text and cast to its column's type, named from the catalog by
    /// schema and name (`$1::"pg_catalog"."int4"`): never with a length, so that no cast
    /// truncates (`character` alone would mean `character(1)`), and the column's own limits
    /// refuse what does not fit. Rows go in multi-row `INSERT`s of at most 65,535 parameters,
    /// PostgreSQL's limit. When one fails, its rows are tried one by one to name the record, and
    /// its values cast one by one to name the column, with the server's message.
    struct PostgreSQLImport {
        /// The most parameters one statement binds: PostgreSQL counts them in 16 bits.
        static let parameterLimit = 65_535

        /// A column as an import writes it.
        struct Column: Sendable {
            let name: String
            /// The type values are cast to: its schema and name, quoted.
            let castType: String
            /// The type as `format_type` spells it, with its modifier, for messages.
            let displayType: String
            let isGenerated: Bool
        }

        /// The columns one set of record keys writes, and where each value is in a record.
        struct Insert: Sendable {
            let columns: [Column]
            let fields: [Int]
            /// The generated columns the record names, which PostgreSQL computes.
            let skipped: [String]
        }

        /// Consecutive records with the same columns: their lines and values, row after row.
        struct Batch: Sendable {
            let insert: Insert
            let keys: [String]
            var lines: [Int] = []
            var values: [DatabaseValue] = []
        }

        let table: PostgreSQLTable
        let columns: [Column]
        let file: String

        /// Imports every record of `reader` into `name`; `header` is a CSV file's, checked before
        /// any record is read. Returns the table's name and what was imported.
        static func run(
            _ url: DatabaseURL, table name: String, reader: inout some RecordReader,
            header: (names: [String], line: Int)?, file: String, progress: ProgressBar
        ) throws -> (String, Importer.Outcome) {
            let connection = try PostgreSQLConnection(url)
            defer { connection.close() }
            let table = try PostgreSQLTable(connection, table: name)
            let columns = try connection.fetchAll(
                """
                SELECT a.attname::text, n.nspname::text, t.typname::text,
                    pg_catalog.format_type(a.atttypid, a.atttypmod), (a.attgenerated <> '')::int
                FROM pg_catalog.pg_attribute AS a JOIN pg_catalog.pg_type AS t ON t.oid = a.atttypid
                JOIN pg_catalog.pg_namespace AS n ON n.oid = t.typnamespace
                WHERE a.attrelid = $1::regclass AND a.attnum > 0 AND NOT a.attisdropped
                ORDER BY a.attnum
                """, [.text(table.quotedName)]
            ).map { row in
                Column(
                    name: row.value(at: 0).cellText,
                    castType: PostgreSQLTable.quote(row.value(at: 1).cellText) + "."
                        + PostgreSQLTable.quote(row.value(at: 2).cellText),
                    displayType: row.value(at: 3).cellText, isGenerated: row.value(at: 4) == .integer(1))
            }
            let importer = PostgreSQLImport(table: table, columns: columns, file: file)

            var inserts: [[String]: Insert] = [:]
            var skipped: [String] = []
            func insert(for keys: [String], line: Int, isHeader: Bool) throws -> Insert {
                if let known = inserts[keys] { return known }
                let insert = try importer.makeInsert(keys, line: line, isHeader: isHeader)
                inserts[keys] = insert
                for name in insert.skipped where !skipped.contains(name) { skipped.append(name) }
                return insert
            }
            if let header { _ = try insert(for: header.names, line: header.line, isHeader: true) }
            var batches: [Batch] = []
            var count = 0
            while let record = try reader.next() {
                let insert = try insert(for: record.columns, line: record.line, isHeader: false)
                if batches.last?.keys != record.columns { batches.append(Batch(insert: insert, keys: record.columns)) }
                batches[batches.count - 1].lines.append(record.line)
                batches[batches.count - 1].values.append(contentsOf: insert.fields.map { record.values[$0] })
                count += 1
                if count & 0xFF == 0 { progress.update(done: reader.bytesRead, rows: count) }
            }
            do {
                try connection.transaction { [batches] transaction in
                    for batch in batches { try await importer.insert(batch, transaction) }
                }
            } catch let violation as ConstraintViolation {
                throw CommandError.failure("\(violation.underlying)\n  nothing was imported")
            } catch let error as PostgreSQLTimeLimitError {
                throw CommandError.failure("\(error)\n  nothing was imported")
            } catch let error as PostgreSQLError {
                throw CommandError.failure("\(error)\n  nothing was imported")
            }
            progress.finish()
            let names = columns.map(\.name)
            return (table.name, Importer.Outcome(rows: count, skippedColumns: names.filter { skipped.contains($0) }))
        }

        /// The insert for the keys `names`; an unknown name throws as on SQLite, underlined when
        /// the names are a CSV header.
        private func makeInsert(_ names: [String], line: Int, isHeader: Bool) throws -> Insert {
            var named: [Column] = []
            for (index, name) in names.enumerated() {
                do {
                    let found = try table.column(name)
                    named.append(columns.first { $0.name == found.name }!)
                } catch let error as SchemaError {
                    throw ImportError(
                        file: file, line: line,
                        message: isHeader ? Importer.underline(index, of: names, error) : error.description)
                }
            }
            for (position, column) in named.enumerated() {
                if let earlier = named[..<position].firstIndex(where: { $0.name == column.name }) {
                    throw ImportError(
                        file: file, line: line,
                        message: "\"\(names[earlier])\" and \"\(names[position])\" name the same column")
                }
            }
            let fields = named.indices.filter { !named[$0].isGenerated }
            return Insert(
                columns: fields.map { named[$0] }, fields: fields, skipped: named.filter(\.isGenerated).map(\.name))
        }

        /// `INSERT` for `rows` rows of the insert's columns, each value cast to its column's type.
        private func sql(_ insert: Insert, rows: Int) -> String {
            guard !insert.columns.isEmpty else { return "INSERT INTO \(table.quotedName) DEFAULT VALUES" }
            let names = insert.columns.map { PostgreSQLTable.quote($0.name) }.joined(separator: ", ")
            var sql = "INSERT INTO \(table.quotedName) (\(names)) VALUES "
            var parameter = 0
            for row in 0..<rows {
                sql += row == 0 ? "(" : ", ("
                for (index, column) in insert.columns.enumerated() {
                    parameter += 1
                    sql += (index == 0 ? "$" : ", $") + String(parameter) + "::" + column.castType
                }
                sql += ")"
            }
            return sql
        }

        /// Inserts a batch's rows, as many in each statement as the parameter limit allows.
        private func insert(_ batch: Batch, _ transaction: PostgreSQLTransaction) async throws {
            let width = batch.insert.columns.count
            // A statement with no columns inserts one row of defaults.
            let perStatement = width == 0 ? 1 : max(1, Self.parameterLimit / width)
            let full = sql(batch.insert, rows: perStatement)
            var start = 0
            while start < batch.lines.count {
                let end = min(start + perStatement, batch.lines.count)
                let statement = end - start == perStatement ? full : sql(batch.insert, rows: end - start)
                let values = Array(batch.values[(start * width)..<(end * width)])
                try await transaction.execute("SAVEPOINT sqlq_import")
                do {
                    try await transaction.execute(statement, values)
                } catch  where Self.isRefusal(error) {
                    try await transaction.execute("ROLLBACK TO SAVEPOINT sqlq_import")
                    try await diagnose(batch, rows: start..<end, failure: error, transaction)
                }
                try await transaction.execute("RELEASE SAVEPOINT sqlq_import")
                start = end
            }
        }

        /// Inserts the rows one by one until one fails, and throws the ``ImportError`` that names
        /// its line, its column when a cast of one value fails (or the server names the column),
        /// and the server's message.
        private func diagnose(
            _ batch: Batch, rows: Range<Int>, failure: any Error, _ transaction: PostgreSQLTransaction
        ) async throws {
            let width = batch.insert.columns.count
            let single = sql(batch.insert, rows: 1)
            for row in rows {
                let values = Array(batch.values[(row * width)..<((row + 1) * width)])
                try await transaction.execute("SAVEPOINT sqlq_import_row")
                do {
                    try await transaction.execute(single, values)
                    try await transaction.execute("RELEASE SAVEPOINT sqlq_import_row")
                } catch  where Self.isRefusal(error) {
                    try await transaction.execute("ROLLBACK TO SAVEPOINT sqlq_import_row")
                    let message = try await explain(error, values: values, columns: batch.insert.columns, transaction)
                    throw ImportError(file: file, line: batch.lines[row], message: message)
                }
            }
            // No row fails alone: the statement as a whole did.
            throw ImportError(file: file, line: batch.lines[rows.lowerBound], message: Self.message(of: failure))
        }

        /// The server's message for a row, after the column at fault when one can be named.
        private func explain(
            _ error: any Error, values: [DatabaseValue], columns: [Column], _ transaction: PostgreSQLTransaction
        ) async throws -> String {
            if let violation = error as? ConstraintViolation, let name = violation.columns.first,
                let column = columns.first(where: { $0.name == name })
            {
                return "column \"\(column.name)\" (\(column.displayType)): " + Self.message(of: error)
            }
            for (column, value) in zip(columns, values) where !value.isNull {
                try await transaction.execute("SAVEPOINT sqlq_import_value")
                do {
                    try await transaction.execute("SELECT $1::\(column.castType)", [value])
                    try await transaction.execute("RELEASE SAVEPOINT sqlq_import_value")
                } catch  where Self.isRefusal(error) {
                    try await transaction.execute("ROLLBACK TO SAVEPOINT sqlq_import_value")
                    return "column \"\(column.name)\" (\(column.displayType)): " + Self.message(of: error)
                }
            }
            return Self.message(of: error)
        }

        /// Whether the server refused a statement for its values, rather than the connection
        /// failing or a time limit passing (which trying the rows one by one would only repeat).
        private static func isRefusal(_ error: any Error) -> Bool {
            if error is ConstraintViolation { return true }
            guard let error = error as? PostgreSQLError, error.kind == .server else { return false }
            return PostgreSQLTimeLimitError(error, timeout: 0) == nil
        }

        /// The server's message and detail, without the SQL (the detail of a NOT NULL violation,
        /// the whole row, is left out).
        private static func message(of error: any Error) -> String {
            var notNull = false
            var underlying = error
            if let violation = error as? ConstraintViolation {
                notNull = violation.kind == .notNull
                underlying = violation.underlying
            }
            guard let error = underlying as? PostgreSQLError else { return "\(underlying)" }
            guard let detail = error.detail, !notNull else { return error.message }
            return error.message + " (" + detail + ")"
        }
    }
#else
    /// Without the `PostgreSQL` trait, sqlq imports into SQLite files only, and says so for a URL.
    enum PostgreSQLImport {
        static func run(
            _ url: DatabaseURL, table name: String, reader: inout some RecordReader,
            header: (names: [String], line: Int)?, file: String, progress: ProgressBar
        ) throws -> (String, Importer.Outcome) {
            throw CommandError.usage("this sqlq was built without the PostgreSQL trait, so it reads SQLite files only")
        }
    }
#endif
