import CSQLite
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
                insert = try makeInsert(record.columns, line: record.line, db)
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

    /// Imports every record of a CSV file and returns how many there were: the same checks as
    /// ``run(_:into:progress:)``, with each field bound from the reader's buffer as it is.
    func run(csv reader: inout CSVReader, into db: Database, progress: ProgressBar?) throws -> Int {
        var count = 0
        var insert: Insert?
        var statement: Statement?
        while try reader.advance() {
            if insert == nil {
                insert = try makeInsert(reader.header, line: reader.recordLine, db)
                statement = try db.makeStatement(insert!.sql)
            }
            let columns = insert!.columns
            let handle = statement!.sqliteHandle
            for (index, column) in columns.enumerated() {
                try bind(reader, field: index, column: column, handle)
            }
            do {
                defer { statement!.reset() }
                while try statement!.step() {}
            } catch let error as SQLiteError where !DatabaseOptions.isDatabaseFailure(error) {
                throw ImportError(file: file, line: reader.recordLine, message: error.message)
            }
            count += 1
            if count & 0xFF == 0 { progress?.update(done: reader.bytesRead, rows: count) }
        }
        // The text bound last points into the reader's buffer, which goes away.
        if let statement { sqlite3_clear_bindings(statement.sqliteHandle) }
        progress?.finish()
        return count
    }

    /// Binds field `index` of the reader's record to parameter `index + 1`, as
    /// ``CSVReader/next()`` reads it, after the checks of ``check(_:for:line:)``.
    @inline(__always)
    private func bind(_ reader: CSVReader, field index: Int, column: TableSchema.ColumnInfo, _ handle: OpaquePointer)
        throws
    {
        let bytes = reader.field(index)
        let parameter = Int32(index + 1)
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

    private func makeInsert(_ names: [String], line: Int, _ db: Database) throws -> Insert {
        var columns: [TableSchema.ColumnInfo] = []
        for name in names {
            do {
                columns.append(try schema.column(name, in: db))
            } catch let error as SchemaError {
                throw ImportError(file: file, line: line, message: error.description)
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

/// SQLite's `SQLITE_TRANSIENT`, a macro Swift cannot import: SQLite copies the bytes.
private let transientDestructor = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
