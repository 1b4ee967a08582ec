import ArgumentParser
import SQLite

/// `sqlq schema TABLE`: how a table is defined.
struct SchemaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema",
        abstract: "Print a table's CREATE statement, with its indexes and triggers.",
        discussion: """
            With --format, prints the table's columns instead: position, name, declared type, \
            NOT NULL, default value, primary key position, and for a generated column how it is \
            generated (virtual or stored). Hidden columns of virtual tables are left out, as \
            SELECT * leaves them out.

            Examples:
              sqlq schema items
              sqlq schema items --format markdown
            """)

    @OptionGroup var database: DatabaseOptions

    @Argument(help: "The table or view.")
    var table: String

    @Option(help: "Print the columns in this format: table, json, ndjson, csv, tsv or markdown.")
    var format: OutputFormat?

    func run() throws {
        if let url = try database.postgreSQLURL() {
            return try PostgreSQLCommands.schema(url, table: table, format: format)
        }
        let connection = try database.open(.read)
        let output = OutputStream(fileDescriptor: 1)
        try connection.read { db in
            let name = try db.checkTable(table)
            if let format {
                let result = try ResultSet.fetch(
                    db,
                    sql: """
                        SELECT cid, name, type, "notnull", dflt_value, pk,
                            CASE hidden WHEN 2 THEN 'virtual' WHEN 3 THEN 'stored' END AS generated
                        FROM pragma_table_xinfo(?) WHERE hidden <> 1 ORDER BY cid
                        """,
                    arguments: [.text(name)])
                format.makeWriter(output: output, style: .forDescriptor(1)).write(result)
                return
            }
            // The table or view first, then its indexes and triggers.
            let statements = try db.fetchAll(
                String.self,
                """
                SELECT sql FROM sqlite_master
                WHERE tbl_name = ? COLLATE NOCASE AND sql IS NOT NULL
                ORDER BY type NOT IN ('table', 'view'), type, name
                """, [.text(name)])
            for statement in statements { output.writeLine(statement + ";") }
        }
        output.flush()
    }
}
