import ArgumentParser
import SQLite

/// `sqlq sql "SELECT …"`: raw SQL, read-only, with bound parameters.
struct SQLCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sql",
        abstract: "Run one read-only SQL statement, with bound parameters.",
        discussion: """
            The database is opened read-only, so the statement cannot change it. Each --param \
            binds the next ? of the statement: whole numbers bind as integers, other numbers as \
            reals, and anything else as text.

            Examples:
              sqlq sql "SELECT list_id, count(*) AS open FROM items WHERE NOT done GROUP BY list_id"
              sqlq sql "SELECT title FROM items WHERE priority >= ? AND title LIKE ?" --param 4 --param "Buy%"
            """)

    @OptionGroup var database: DatabaseOptions

    @Argument(help: "One SQL statement.")
    var sql: String

    @Option(
        name: .customLong("param"), parsing: .unconditionalSingleValue,
        help: ArgumentHelp("A value for the next ? placeholder. Repeat for each one.", valueName: "value"))
    var parameters: [String] = []

    @Option(help: "The output format: table, json, ndjson, csv, tsv or markdown.")
    var format: OutputFormat = .table

    func run() throws {
        if Self.isBlank(sql) {
            throw CommandError.usage(
                "the SQL is empty; give one statement, as in sqlq sql \"SELECT count(*) FROM items\"")
        }
        let connection = try database.open(.read)
        let output = OutputStream(fileDescriptor: 1)
        let arguments = parameters.map(Self.value)
        try connection.read { db in
            try check(db, arguments: arguments)
            try format.write(db, sql: sql, arguments: arguments, to: output, style: .forDescriptor(1))
        }
        output.flush()
    }

    /// SQLITE_MISUSE: what preparing reports for SQL that is not exactly one statement.
    private static let misuse: Int32 = 21

    /// Prepares the statement once to turn the mistakes of the command line into usage errors:
    /// more than one statement, and a number of `--param` that does not match the placeholders.
    private func check(_ db: Database, arguments: [SQLiteValue]) throws {
        let statement: Statement
        do {
            statement = try db.makeStatement(sql)
        } catch let error as SQLiteError where error.code == Self.misuse {
            // The one misuse preparing reports once the SQL is known not to be blank.
            throw CommandError.usage(
                "sql runs one statement, and this SQL holds more after the first; "
                    + "run them one at a time, or with the sqlite3 shell for a script:\n  "
                    + TableWriter.visible(sql))
        }
        guard statement.parameterCount == arguments.count else {
            let placeholders =
                statement.parameterCount == 1 ? "1 placeholder" : "\(statement.parameterCount) placeholders"
            throw CommandError.usage(
                "the statement has \(placeholders) (?), but \(arguments.count) --param "
                    + "\(arguments.count == 1 ? "was" : "were") given; give one --param for each placeholder")
        }
    }

    /// The value a `--param` binds: an integer or a real when SQLite reads the text as a number
    /// (a whole decimal literal, without spaces: not `0x10`, `nan` or `inf`), text otherwise.
    static func value(_ text: String) -> SQLiteValue {
        guard let first = text.unicodeScalars.first, let last = text.unicodeScalars.last,
            !first.properties.isWhitespace, !last.properties.isWhitespace,
            SQLiteValue.numericAffinity(of: text) != nil
        else { return .text(text) }
        if let integer = Int64(text) { return .integer(integer) }
        return Double(text).map(SQLiteValue.real) ?? .text(text)
    }

    /// True when the SQL holds nothing but spaces, semicolons and comments.
    static func isBlank(_ sql: String) -> Bool {
        var rest = Substring(sql)
        while true {
            rest = rest.drop { $0.isWhitespace || $0 == ";" }
            if rest.hasPrefix("--") {
                rest = rest.drop { $0 != "\n" }
            } else if rest.hasPrefix("/*") {
                guard let close = rest.utf8Range(of: "*/") else { return true }
                rest = rest[close.upperBound...]
            } else {
                return rest.isEmpty
            }
        }
    }
}
