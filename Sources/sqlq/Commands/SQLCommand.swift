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
        let connection = try database.open(.read)
        let output = OutputStream(fileDescriptor: 1)
        let arguments = parameters.map(Self.value)
        try connection.read { db in
            try format.write(db, sql: sql, arguments: arguments, to: output, style: .forDescriptor(1))
        }
        output.flush()
    }

    /// The value a `--param` binds: an integer, a real, or text.
    static func value(_ text: String) -> SQLiteValue {
        if let integer = Int64(text) { return .integer(integer) }
        if text.allSatisfy({ "0123456789+-.eE".contains($0) }), let real = Double(text) { return .real(real) }
        return .text(text)
    }
}
