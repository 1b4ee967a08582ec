import CSQLite
import SQLite

/// Inserts the rows of a ``RecordReader`` into a table, checking each row's columns against the
/// schema and its values against the columns' types. Run it inside a transaction: the first bad
/// row throws an ``ImportError`` naming its line, and the transaction's rollback undoes the rows
/// before it.
struct Importer {
    let schema: TableSchema
    let file: String

    /// What an import did: the rows inserted, and the generated columns of the file left out,
    /// in the table's order.
    struct Outcome {
        var rows: Int
        var skippedColumns: [String]
    }

    /// An `INSERT` for one set of columns, prepared once for every row with those columns.
    private struct Insert {
        let sql: String
        /// The columns written, and for each the position of its value in a record.
        let columns: [TableSchema.ColumnInfo]
        let fields: [Int]
        /// Generated columns the record names, which SQLite computes and no insert may set.
        let skipped: [TableSchema.ColumnInfo]
    }

    /// Imports every row.
    func run(_ reader: inout some RecordReader, into db: Database, progress: ProgressBar?) throws -> Outcome {
        var inserts: [[String]: Insert] = [:]
        var skipped: [String] = []
        var count = 0
        while let record = try reader.next() {
            let insert: Insert
            if let known = inserts[record.columns] {
                insert = known
            } else {
                insert = try makeInsert(record.columns, line: record.line, db)
                inserts[record.columns] = insert
                for column in insert.skipped where !skipped.contains(column.name) { skipped.append(column.name) }
            }
            let values = insert.fields.map { record.values[$0] }
            for (column, value) in zip(insert.columns, values) {
                try check(value, for: column, line: record.line)
            }
            do {
                try db.cachedStatement(insert.sql).execute(values)
            } catch let error as SQLiteError where !DatabaseOptions.isDatabaseFailure(error) {
                // A failure of the database itself (read-only, locked, full) propagates, to be
                // reported with the database's name rather than this line's.
                throw ImportError(file: file, line: record.line, message: error.message)
            }
            count += 1
            progress?.update(done: reader.bytesRead, rows: count)
        }
        progress?.finish()
        return Outcome(rows: count, skippedColumns: inSchemaOrder(skipped))
    }

    /// Imports every record of a CSV file: the same checks as ``run(_:into:progress:)``, with
    /// each field bound from the reader's buffer as it is. The header is checked first, so that
    /// a wrong name is reported on its line, whether or not rows follow.
    func run(csv reader: inout CSVReader, into db: Database, progress: ProgressBar?) throws -> Outcome {
        var count = 0
        let insert = try makeInsert(reader.header, line: reader.headerLine, isHeader: true, db)
        let statement = try db.makeStatement(insert.sql)
        let handle = statement.sqliteHandle
        while try reader.advance() {
            for (parameter, (column, field)) in zip(insert.columns, insert.fields).enumerated() {
                try bind(reader, field: field, parameter: Int32(parameter + 1), column: column, handle)
            }
            do {
                defer { statement.reset() }
                while try statement.step() {}
            } catch let error as SQLiteError where !DatabaseOptions.isDatabaseFailure(error) {
                throw ImportError(file: file, line: reader.recordLine, message: error.message)
            }
            count += 1
            if count & 0xFF == 0 { progress?.update(done: reader.bytesRead, rows: count) }
        }
        // The text bound last points into the reader's buffer, which goes away.
        sqlite3_clear_bindings(handle)
        progress?.finish()
        return Outcome(rows: count, skippedColumns: insert.skipped.map(\.name))
    }

    private func inSchemaOrder(_ names: [String]) -> [String] {
        schema.columns.map(\.name).filter { names.contains($0) }
    }

    /// Binds field `index` of the reader's record to `parameter`, as ``CSVReader/next()`` reads
    /// it, after the checks of ``check(_:for:line:)``.
    @inline(__always)
    private func bind(
        _ reader: CSVReader, field index: Int, parameter: Int32, column: TableSchema.ColumnInfo,
        _ handle: OpaquePointer
    ) throws {
        let bytes = reader.field(index)
        let code: Int32
        if !reader.isQuoted(index) && bytes.isEmpty {
            code = sqlite3_bind_null(handle, parameter)
        } else if !reader.isQuoted(index), let blob = CSVReader.blob(bytes) {
            code = blob.withUnsafeBytes { raw in
                sqlite3_bind_blob(
                    handle, parameter, raw.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(raw.count),
                    transientDestructor)
            }
        } else if !reader.isQuoted(index), reader.untyped[index], let number = CSVReader.number(bytes) {
            switch number {
            case .integer(let integer): code = sqlite3_bind_int64(handle, parameter, integer)
            case .real(let real): code = sqlite3_bind_double(handle, parameter, real)
            default: code = SQLITE_MISUSE
            }
        } else {
            if column.affinity.holdsNumbers && !TextBytes.isNumericLiteral(bytes) {
                try check(.text(String(decoding: bytes, as: UTF8.self)), for: column, line: reader.recordLine)
            }
            // The buffer holds the bytes until the statement has run: SQLite need not copy them.
            code = sqlite3_bind_text(
                handle, parameter, UnsafeRawPointer(bytes.baseAddress!).assumingMemoryBound(to: CChar.self),
                Int32(bytes.count), nil)
        }
        if code != SQLITE_OK {
            throw ImportError(
                file: file, line: reader.recordLine, message: String(cString: sqlite3_errmsg(sqlite3_db_handle(handle)))
            )
        }
    }

    /// The insert for the columns `names`; an unknown name throws, underlined when the names
    /// are a CSV header.
    private func makeInsert(_ names: [String], line: Int, isHeader: Bool = false, _ db: Database) throws -> Insert {
        var columns: [TableSchema.ColumnInfo] = []
        for (index, name) in names.enumerated() {
            do {
                columns.append(try schema.column(name, in: db))
            } catch let error as SchemaError {
                throw ImportError(
                    file: file, line: line,
                    message: isHeader ? Self.underline(index, of: names, error) : error.description)
            }
        }
        for (position, column) in columns.enumerated() {
            if let earlier = columns[..<position].firstIndex(where: { $0.name == column.name }) {
                throw ImportError(
                    file: file, line: line,
                    message: "\"\(names[earlier])\" and \"\(names[position])\" name the same column")
            }
        }
        let table = String.quotedIdentifier(schema.name)
        let fields = columns.indices.filter { !columns[$0].isGenerated }
        let skipped = inSchemaOrder(columns.filter(\.isGenerated).map(\.name)).compactMap { name in
            columns.first { $0.name == name }
        }
        let written = fields.map { columns[$0] }
        guard !written.isEmpty else {
            return Insert(sql: "INSERT INTO \(table) DEFAULT VALUES", columns: [], fields: [], skipped: skipped)
        }
        let names = written.map { String.quotedIdentifier($0.name) }.joined(separator: ", ")
        let placeholders = [String](repeating: "?", count: written.count).joined(separator: ", ")
        return Insert(
            sql: "INSERT INTO \(table) (\(names)) VALUES (\(placeholders))", columns: written, fields: fields,
            skipped: skipped)
    }

    /// The schema error's first line, then the names with the unknown one underlined, then the
    /// rest (the columns that exist).
    static func underline(_ index: Int, of names: [String], _ error: SchemaError) -> String {
        let description = error.description
        let firstLine = description.prefix { $0 != "\n" }
        let shown = names.map { TableWriter.visible($0) }
        let column = shown[..<index].reduce(0) { $0 + $1.count + 1 }
        return firstLine + "\n  " + shown.joined(separator: ",") + "\n  "
            + String(repeating: " ", count: column) + String(repeating: "^", count: max(1, shown[index].count))
            + description.dropFirst(firstLine.count)
    }

    /// Text in a column declared as a number must read as one to SQLite, which would otherwise
    /// store it as text. (Swift's `Double(_:)` also reads `nan`, `inf` and `0x1A`; SQLite does not.)
    private func check(_ value: DatabaseValue, for column: TableSchema.ColumnInfo, line: Int) throws {
        guard column.affinity.holdsNumbers, case .text(let text) = value,
            DatabaseValue.numericAffinity(of: text) == nil
        else { return }
        throw ImportError(
            file: file, line: line,
            message:
                "column \"\(column.name)\" (\(column.declaredType)) holds numbers, but \(value.description) is not a number"
        )
    }
}

/// SQLite's `SQLITE_TRANSIENT`, a macro Swift cannot import: SQLite copies the bytes.
private let transientDestructor = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
