import ArgumentParser
import SQLite

/// `sqlq tables`: the tables and views of the database.
struct TablesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tables",
        abstract: "List the tables and views.",
        discussion: """
            Without --format, prints one name per line; with it, each table's name, type and \
            number of columns.

            Examples:
              sqlq tables --db app.sqlite
              sqlq tables --format json
            """)

    @OptionGroup var database: DatabaseOptions

    @Option(help: "Print name, type and column count in this format: table, json, ndjson, csv, tsv or markdown.")
    var format: OutputFormat?

    func run() throws {
        if let url = try database.postgreSQLURL() { return try PostgreSQLCommands.tables(url, format: format) }
        let connection = try database.open(.read)
        let output = OutputStream(fileDescriptor: 1)
        try connection.read { db in
            guard let format else {
                for name in try db.tableNames() { output.writeLine(name) }
                return
            }
            let result = try ResultSet.fetch(
                db,
                sql: """
                    SELECT m.name, m.type,
                        (SELECT count(*) FROM pragma_table_xinfo(m.name) WHERE hidden <> 1) AS columns
                    FROM sqlite_master AS m
                    WHERE m.type IN ('table', 'view') AND m.name NOT LIKE 'sqlite\\_%' ESCAPE '\\'
                    ORDER BY m.name
                    """, arguments: [])
            format.makeWriter(output: output, style: .forDescriptor(1)).write(result)
        }
        output.flush()
    }
}
