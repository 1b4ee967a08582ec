import SQLite

/// Inserts the rows of a ``RecordReader`` into a table, checking each row's columns against the
/// schema and its values against the columns' types. Run it inside a transaction: the first bad
/// row throws an ``ImportError`` naming its line, and the transaction's rollback undoes the rows
/// before it.
struct Importer {
    let schema: TableSchema
    let file: String

    /// An `INSERT` for one set of columns, prepared once for every row with those columns.
    private struct Insert {
        let sql: String
        let columns: [TableSchema.ColumnInfo]
    }

    /// Imports every row and returns how many there were.
    func run(_ reader: inout some RecordReader, into db: Database, progress: ProgressBar?) throws -> Int {
        var inserts: [[String]: Insert] = [:]
        var count = 0
        while let record = try reader.next() {
            let insert: Insert
            if let known = inserts[record.columns] {
                insert = known
            } else {
                insert = try makeInsert(record, db)
                inserts[record.columns] = insert
            }
            for (column, value) in zip(insert.columns, record.values) {
                try check(value, for: column, line: record.line)
            }
            do {
                try db.cachedStatement(insert.sql).execute(record.values)
            } catch let error as SQLiteError where !DatabaseOptions.isDatabaseFailure(error) {
                // A failure of the database itself (read-only, locked, full) propagates, to be
                // reported with the database's name rather than this line's.
                throw ImportError(file: file, line: record.line, message: error.message)
            }
            count += 1
            progress?.update(done: reader.bytesRead, rows: count)
        }
        progress?.finish()
        return count
    }

    private func makeInsert(_ record: ImportRecord, _ db: Database) throws -> Insert {
        var columns: [TableSchema.ColumnInfo] = []
        for name in record.columns {
            do {
                columns.append(try schema.column(name, in: db))
            } catch let error as SchemaError {
                throw ImportError(file: file, line: record.line, message: error.description)
            }
        }
        for (position, column) in columns.enumerated() {
            if let earlier = columns[..<position].firstIndex(where: { $0.name == column.name }) {
                throw ImportError(
                    file: file, line: record.line,
                    message:
                        "\"\(record.columns[earlier])\" and \"\(record.columns[position])\" name the same column")
            }
        }
        let table = String.quotedIdentifier(schema.name)
        guard !columns.isEmpty else {
            return Insert(sql: "INSERT INTO \(table) DEFAULT VALUES", columns: [])
        }
        let names = columns.map { String.quotedIdentifier($0.name) }.joined(separator: ", ")
        let placeholders = [String](repeating: "?", count: columns.count).joined(separator: ", ")
        return Insert(sql: "INSERT INTO \(table) (\(names)) VALUES (\(placeholders))", columns: columns)
    }

    /// Text in a column declared as a number must read as one to SQLite, which would otherwise
    /// store it as text. (Swift's `Double(_:)` also reads `nan`, `inf` and `0x1A`; SQLite does not.)
    private func check(_ value: SQLiteValue, for column: TableSchema.ColumnInfo, line: Int) throws {
        guard column.affinity.holdsNumbers, case .text(let text) = value,
            SQLiteValue.numericAffinity(of: text) == nil
        else { return }
        throw ImportError(
            file: file, line: line,
            message:
                "column \"\(column.name)\" (\(column.declaredType)) holds numbers, but \(value.description) is not a number"
        )
    }
}
