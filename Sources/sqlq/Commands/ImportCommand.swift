import ArgumentParser
import SQLite

#if canImport(Glibc)
    import Glibc
#endif

/// `sqlq import TABLE FILE`: rows from CSV, JSON or NDJSON, all in one transaction.
struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Insert the rows of a CSV, JSON or NDJSON file into a table, all or nothing.",
        discussion: """
            CSV files start with a header line of column names; an empty field is NULL and a \
            quoted empty field ("") the empty string. JSON files hold an array of objects, NDJSON \
            files one object per line; keys name columns. The format comes from the file's \
            extension (.csv, .json, .ndjson or .jsonl) unless --format says otherwise; FILE - reads \
            standard input.

            Every row goes in one transaction: if one row is bad, the error names its line and \
            nothing is imported. The file must be UTF-8.

            In CSV, blank lines are skipped, except in a file of one column: there an empty line \
            is a row whose value is NULL, as csv export writes it. Values for generated columns \
            are left out, since SQLite computes them; the summary names those columns.

            An unquoted CSV field X'00FF' is a blob, and in a column declared without a type an \
            unquoted number is a number; quoted, both are text, as csv export writes them. A JSON \
            object {"$base64": true, "encoded": "…"} is a blob, and 1e999 is infinity.

            Examples:
              sqlq import items new-items.csv --db app.sqlite
              sqlq import items export.json --db app.sqlite
              cat rows.ndjson | sqlq import items - --format ndjson --db app.sqlite
            """)

    @OptionGroup var database: DatabaseOptions

    @Argument(help: "The table to insert into.")
    var table: String

    @Argument(help: "The file to read, or - for standard input.", completion: .file())
    var file: String

    @Option(help: "The file's format: csv, json or ndjson. Defaults to the file's extension.")
    var format: ImportFormat?

    func validate() throws {
        if format == nil && ImportFormat(fileName: file) == nil {
            throw ValidationError(
                "cannot tell the format of \"\(file)\" from its name; pass --format csv, json or ndjson")
        }
    }

    func run() throws {
        let format = self.format ?? ImportFormat(fileName: file)!
        let name = file == "-" ? "standard input" : file
        // The table before the file: import creates none, so without it no file could go in.
        let url = try database.postgreSQLURL()
        var sqlite: DatabaseQueue?
        do {
            if let url {
                #if PostgreSQL
                    let connection = try PostgreSQLConnection(url)
                    defer { connection.close() }
                    _ = try PostgreSQLTable(connection, table: table)
                #else
                    _ = url
                #endif
            } else {
                let connection = try database.open(.write, demoNote: "imported rows are gone when sqlq exits.")
                _ = try connection.read { db in try TableSchema(db, table: table) }
                sqlite = connection
            }
        } catch {
            throw Self.missingTable(error) ?? database.failure(error, outcome: "nothing was imported") ?? error
        }
        let descriptor = try Self.open(file)
        defer { if file != "-" { close(descriptor) } }
        var csv: CSVReader?
        var bytes: [UInt8] = []
        let total: Int
        if format == .csv {
            // Read as it is imported, a chunk at a time; the header and the first chunk are
            // checked before the database is opened.
            csv = try CSVReader(descriptor: descriptor, file: name)
            var status = stat()
            total = fstat(descriptor, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG ? Int(status.st_size) : 0
        } else {
            bytes = try Self.contents(of: descriptor, path: file)
            if let offset = UTF8Validation.firstInvalidByte(in: bytes) {
                let line = 1 + bytes[..<offset].reduce(0) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 }
                let hex = String(bytes[offset], radix: 16, uppercase: true)
                throw ImportError(
                    file: name, line: line,
                    message:
                        "not UTF-8 (byte \(offset + 1) of the file, 0x\(hex.count == 1 ? "0" + hex : hex)); "
                        + "save the file as UTF-8 (it may be in Latin-1 or Windows-1252)")
            }
            total = bytes.count
        }
        let progress = ProgressBar(total: total)
        let (tableName, outcome): (String, Importer.Outcome)
        do {
            if let url {
                if var reader = csv {
                    let header = (names: reader.header, line: reader.headerLine)
                    (tableName, outcome) = try PostgreSQLImport.run(
                        url, table: table, reader: &reader, header: header, file: name, progress: progress)
                } else {
                    var reader = JSONRecordReader(bytes: bytes, file: name, layout: format == .json ? .array : .lines)
                    (tableName, outcome) = try PostgreSQLImport.run(
                        url, table: table, reader: &reader, header: nil, file: name, progress: progress)
                }
            } else {
                guard let connection = sqlite else { preconditionFailure("opened above when there is no URL") }
                (tableName, outcome) = try connection.write { db -> (String, Importer.Outcome) in
                    let importer = Importer(schema: try TableSchema(db, table: table), file: name)
                    let outcome: Importer.Outcome
                    if var reader = csv {
                        reader.readNumbers(inUntypedColumnsOf: importer.schema)
                        outcome = try importer.run(csv: &reader, into: db, progress: progress)
                    } else {
                        var reader = JSONRecordReader(
                            bytes: bytes, file: name, layout: format == .json ? .array : .lines)
                        outcome = try importer.run(&reader, into: db, progress: progress)
                    }
                    return (importer.schema.name, outcome)
                }
            }
        } catch {
            progress.finish()
            throw Self.missingTable(error) ?? database.failure(error, outcome: "nothing was imported") ?? error
        }
        let output = OutputStream(fileDescriptor: 1)
        output.writeLine(Self.summary(outcome, table: tableName, file: name))
        output.flush()
    }

    /// A table that does not exist, with what to do about it, since import creates no table;
    /// nil for any other error.
    static func missingTable(_ error: any Error) -> CommandError? {
        guard let error = error as? SchemaError, error.kind == .unknownTable else { return nil }
        return .usage(
            "\(error)\n  import creates no table: name one of these, or create the table first "
                + "(CREATE TABLE in the sqlite3 shell, or a migration that sqlq migrate applies)")
    }

    /// "Imported 2 rows into "t" from t.csv.", naming the generated columns left out.
    static func summary(_ outcome: Importer.Outcome, table: String, file: String) -> String {
        let rows = outcome.rows == 1 ? "1 row" : "\(outcome.rows) rows"
        var text = "Imported \(rows) into \"\(table)\" from \(file)"
        let skipped = outcome.skippedColumns.map { "\"\($0)\"" }
        if let last = skipped.last {
            text +=
                skipped.count == 1
                ? ", without the generated column \(last)"
                : ", without the generated columns \(skipped.dropLast().joined(separator: ", ")) and \(last)"
        }
        return text + "."
    }

    /// Opens the file to read, or standard input for `-`.
    static func open(_ path: String) throws -> Int32 {
        let descriptor = path == "-" ? STDIN_FILENO : Glibc.open(path, O_RDONLY)
        guard descriptor >= 0 else {
            throw CommandError.failure("cannot read \"\(path)\": \(String(cString: strerror(errno)))")
        }
        return descriptor
    }

    /// The rest of what `descriptor` holds.
    static func contents(of descriptor: Int32, path: String) throws -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw CommandError.failure("cannot read \"\(path)\": \(String(cString: strerror(errno)))")
            }
            if count == 0 { return bytes }
            bytes.append(contentsOf: chunk[..<count])
        }
    }
}
