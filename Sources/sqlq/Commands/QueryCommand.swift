import ArgumentParser
import SQLite

/// `sqlq query TABLE`: one dynamic filtered query, printed in a chosen format.
struct QueryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "query",
        abstract: "Print the rows of a table that match a filter.",
        discussion: """
            Examples:
              sqlq query items --where "priority >= 3 and not done" --sort -due --limit 10
              sqlq query items --where "title contains 'milk'" --columns id,title --format json
              sqlq query items --where "due between 2026-03-01 and 2026-03-31" --count
              sqlq query items --where "list_id in (1, 2)" --sort priority,-due --explain
              sqlq query notes --search "swi conc" --limit 10 --db app.sqlite

            Filter expressions compare columns with values (= != < <= > >=), match text (like, \
            glob, contains), test lists and ranges (in (…), between … and …) and nulls (is null, \
            is not null), and combine with and, or, not and parentheses. A column alone is a \
            true/false test: "not done". Values are numbers, 'strings', true, false, null and \
            dates (2026-03-01, 2026-03-01T09:30). Every value is bound, never spliced into SQL. \
            A dotted name follows a declared foreign key, in --where, --columns and --sort: \
            --where "hero_id.name = 'lina'" --columns text,hero_id.name.

            A date-time may end in Z or an offset from -14:00 to +14:00; it is compared in UTC, \
            which must fall within the years 0000-9999.

            --search needs a full-text index: the table is an FTS5 table, or an FTS5 table's \
            content= names it (sqlq search-index creates one). Each word of the text must start \
            a word of the row; FTS5's operators are plain words there. The best matches come \
            first (FTS5's bm25 rank), unless --sort is given.

            Formats: csv writes NULL as an empty field (in a one-column result, an empty line) \
            and the empty string as ""; tsv writes NULL as \\N and the empty string as an empty \
            field. Text that is not UTF-8 is written as its bytes by csv and tsv, shown as \\xHH \
            by table and markdown, and refused by json and ndjson, which cannot hold it.
            """)

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var query: QueryOptions

    func run() throws {
        if let url = try database.postgreSQLURL() { return try PostgreSQLCommands.query(url, query) }
        let connection = try database.open(.stream)
        let output = OutputStream(fileDescriptor: 1)
        try connection.read { db in
            let tableQuery = try query.makeQuery(db, databaseArguments: database.commandLineArguments)
            if query.explain {
                output.write(try tableQuery.explanation(db))
            } else if tableQuery.counts {
                output.writeLine(String(try tableQuery.request.fetchCount(db)))
            } else if !tableQuery.facets.isEmpty {
                try FacetWriter.write(db, tableQuery, format: query.format, to: output, style: .forDescriptor(1))
            } else {
                try query.format.write(
                    db, sql: tableQuery.sql, arguments: tableQuery.arguments, to: output, style: .forDescriptor(1))
            }
        }
        output.flush()
    }
}
