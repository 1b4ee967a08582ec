import ArgumentParser
import SQLite

/// The options that shape a query, shared by `query` and `watch`.
struct QueryOptions: ParsableArguments {
    @Argument(help: "The table or view to read.")
    var table: String

    @Option(
        name: .customLong("where"), parsing: .unconditionalSingleValue,
        help: ArgumentHelp(
            "A filter expression, such as \"priority >= 3 and not done\". Repeat to require several.", valueName: "expr"
        ))
    var filters: [String] = []

    @Option(
        parsing: .unconditionalSingleValue,
        help: ArgumentHelp(
            "Sort by a column; -column sorts descending. Repeat, or separate with commas.", valueName: "column"))
    var sort: [String] = []

    @Option(help: "Return at most this many rows.")
    var limit: Int?

    @Option(help: "Skip this many rows first.")
    var offset: Int?

    @Option(help: ArgumentHelp("Return only these columns, separated by commas.", valueName: "a,b"))
    var columns: [String] = []

    @Flag(help: "Print the number of matching rows instead of the rows.")
    var count = false

    @Option(help: "The output format: table, json, ndjson, csv, tsv or markdown.")
    var format: OutputFormat = .table

    @Flag(help: "Print the SQL, its arguments and SQLite's query plan instead of running the query.")
    var explain = false

    func validate() throws {
        if let limit, limit < 0 { throw ValidationError("--limit must be 0 or more, not \(limit)") }
        if let offset, offset < 0 { throw ValidationError("--offset must be 0 or more, not \(offset)") }
    }

    /// The query these options describe, with every name checked against `db`'s schema.
    func makeQuery(_ db: Database) throws -> TableQuery {
        let schema = try TableSchema(db, table: table)
        var request = Table(schema.name).all()
        for filter in filters {
            request = request.filter(try FilterCompiler.compile(filter, schema: schema, db: db))
        }
        var orderings: [any SQLOrderingTerm] = []
        for option in sort {
            for (term, position) in Self.terms(option) {
                let descending = term.hasPrefix("-")
                let name = descending || term.hasPrefix("+") ? String(term.dropFirst()) : term
                let namePosition = position + term.count - name.count
                let column = Column(
                    try Self.column(
                        name, option: "--sort", text: option, position: namePosition, schema: schema, db: db))
                orderings.append(descending ? column.desc : term.hasPrefix("+") ? column.asc : column.sqlOrdering)
            }
        }
        if !orderings.isEmpty { request = request.sort(orderings) }
        var selection: [any SQLExpressible] = []
        for option in columns {
            for (name, position) in Self.terms(option) {
                selection.append(
                    Column(
                        try Self.column(
                            name, option: "--columns", text: option, position: position, schema: schema, db: db)))
            }
        }
        if !selection.isEmpty { request = request.select(selection) }
        if limit != nil || offset != nil {
            // SQLite reads a negative limit as "no limit", which OFFSET needs.
            request = request.limit(limit ?? -1, offset: offset)
        }
        return TableQuery(request: request, counts: count)
    }

    /// The comma-separated terms of an option, trimmed, with where each starts.
    static func terms(_ option: String) -> [(String, Int)] {
        var terms: [(String, Int)] = []
        var position = 0
        for part in option.split(separator: ",", omittingEmptySubsequences: false) {
            let leading = part.prefix { $0 == " " }.count
            var term = String(part.dropFirst(leading))
            while term.last == " " { term.removeLast() }
            terms.append((term, position + leading))
            position += part.count + 1
        }
        return terms
    }

    /// The column's name as the schema spells it, or an error pointing at it in the option.
    static func column(
        _ name: String, option: String, text: String, position: Int, schema: TableSchema, db: Database
    ) throws -> String {
        guard !name.isEmpty else {
            throw FilterError(
                reason: .syntax("a column name is missing"), expression: text, position: position, length: 1,
                option: option)
        }
        do {
            return try schema.column(name, in: db).name
        } catch let error as SchemaError {
            throw FilterError(
                reason: .unknownColumn(error), expression: text, position: position, length: name.count, option: option)
        }
    }
}
