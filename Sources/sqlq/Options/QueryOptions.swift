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

    // Unconditional, so that text starting with a dash ("--search -x") is the text searched.
    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Keep the rows with a word starting with each word of the text, found by the table's full-text index; best match first.",
            valueName: "text"))
    var search: String?

    @Option(
        parsing: .unconditionalSingleValue,
        help: ArgumentHelp(
            "Sort by a column; -column sorts descending. Repeat, or separate with commas.", valueName: "column"))
    var sort: [String] = []

    // Read as text, unconditionally, so that "--limit -1" is a bad limit rather than a
    // missing value followed by an unknown option.
    @Option(
        name: .customLong("limit"), parsing: .unconditional,
        help: ArgumentHelp("Return at most this many rows.", valueName: "count"))
    var limitText: String?

    @Option(
        name: .customLong("offset"), parsing: .unconditional,
        help: ArgumentHelp("Skip this many rows first.", valueName: "count"))
    var offsetText: String?

    @Option(
        help: ArgumentHelp(
            "Return only these columns, separated by commas. Quote a name that holds a dot or a comma: \"my.team\".city.",
            valueName: "a,b"))
    var columns: [String] = []

    @Flag(help: "Print the number of matching rows instead of the rows.")
    var count = false

    @Option(help: "The output format: table, json, ndjson, csv, tsv or markdown.")
    var format: OutputFormat = .table

    @Option(
        name: .customLong("facet"), parsing: .unconditionalSingleValue,
        help: ArgumentHelp(
            "Count the most common values of a column among the matching rows. Repeat for several.",
            valueName: "column"))
    var facets: [String] = []

    @Option(
        name: .customLong("facet-size"), parsing: .unconditional,
        help: ArgumentHelp("Show at most this many values per facet (default 10).", valueName: "count"))
    var facetSizeText: String?

    @Flag(help: "Print the SQL, its arguments and the database's query plan instead of running the query.")
    var explain = false

    /// `--limit`, once ``validate()`` has checked it.
    var limit: Int? { limitText.flatMap { try? Self.count($0, option: "--limit") } }
    /// `--offset`, once ``validate()`` has checked it.
    var offset: Int? { offsetText.flatMap { try? Self.count($0, option: "--offset") } }
    /// `--facet-size`, once ``validate()`` has checked it.
    var facetSize: Int { facetSizeText.flatMap { try? Self.count($0, option: "--facet-size") } ?? 10 }
    /// `--search`, once ``validate()`` has checked it: every word, as a prefix, as a search box
    /// matches.
    var searchPattern: FTS5Pattern? { search.flatMap { try? FTS5Pattern(matching: $0, mode: .allPrefixes) } }

    /// The most words a search takes: FTS5 runs one prefix query per word, so thousands of
    /// words would take minutes, while a search box needs a few.
    static let maximumSearchWords = 64
    /// The most bytes a search takes, checked before its words are counted.
    static let maximumSearchBytes = 1_024

    func validate() throws {
        if let search {
            try Self.checkSize(ofSearch: search)
            do {
                _ = try FTS5Pattern(matching: search, mode: .allPrefixes)
            } catch {
                throw ValidationError("--search: \(error)")
            }
        }
        if let limitText { _ = try Self.count(limitText, option: "--limit") }
        if let offsetText { _ = try Self.count(offsetText, option: "--offset") }
        try Facet.validate(facets: facets, sizeText: facetSizeText, counts: count)
    }

    /// Refuses a search longer than ``maximumSearchBytes`` or of more than
    /// ``maximumSearchWords`` words, naming its size but not repeating it.
    static func checkSize(ofSearch search: String) throws {
        let limit = "a search takes at most \(maximumSearchWords) words and \(maximumSearchBytes) bytes"
        let bytes = search.utf8.count
        guard bytes <= maximumSearchBytes else {
            throw ValidationError("--search: the text is \(bytes) bytes; \(limit), so search for fewer words")
        }
        let words = FTS5Pattern.tokens(of: search).count
        guard words <= maximumSearchWords else {
            throw ValidationError("--search: the text has \(words) words; \(limit), so search for fewer words")
        }
    }

    /// The value of a numeric option: a whole number, 0 or more.
    static func count(_ text: String, option: String) throws -> Int {
        guard let count = Int(text), count >= 0 else {
            throw ValidationError(
                "\(option) must be a non-negative integer, such as \(option) 10; \"\(text)\" is not one"
                    + (!text.isEmpty && text.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
                        ? " (it is larger than \(Int.max))" : ""))
        }
        return count
    }

    /// The query these options describe, with every name checked against `db`'s schema.
    ///
    /// - Parameter databaseArguments: How the `search-index` command that an error for a table
    ///   with no full-text index suggests names the database.
    func makeQuery(_ db: Database, databaseArguments: [String] = []) throws -> TableQuery {
        let schema = try TableSchema(db, table: table)
        var request = Table(schema.name).all()
        var search: FullTextSearch?
        if let searchPattern {
            guard let index = try SearchIndex.find(for: schema.name, in: db) else {
                throw SearchIndex.missing(schema, purpose: "--search: ", databaseArguments: databaseArguments)
            }
            try index.checkSearchable(in: db, databaseArguments: databaseArguments)
            search = index.search(searchPattern, of: schema.name)
        }
        // Best match first, unless --sort says otherwise.
        let rank = sort.isEmpty ? search?.bm25() : nil
        // Compiled together, so that many --where options make one balanced AND and stay
        // within the values one statement binds, less those the rows' statement (the search, its
        // ranking, the limit and offset) or the facets' (the search and the facet's limit) bind.
        let searchValues = search?.sqlExpression.arguments.count ?? 0
        var rowValues: [(option: String, count: Int)] = []
        if searchValues > 0 { rowValues.append(("--search", searchValues + (rank?.arguments.count ?? 0))) }
        if limit != nil || offset != nil {
            // Rendered LIMIT ?, or LIMIT ? OFFSET ? (an offset alone has the limit -1).
            rowValues += offset == nil ? [("--limit", 1)] : [("--limit", 1), ("--offset", 1)]
        }
        var facetValues: [(option: String, count: Int)] = []
        if !facets.isEmpty { facetValues = (searchValues > 0 ? [("--search", searchValues)] : []) + [("--facet", 1)] }
        let reserved = Self.reservation(
            facetValues.map(\.count).reduce(0, +) > rowValues.map(\.count).reduce(0, +) ? facetValues : rowValues)
        let whereFilter =
            filters.isEmpty ? nil : try FilterCompiler.compile(filters, schema: schema, db: db, reserved: reserved)
        // The facets count within the same rows.
        let filter: SQLExpression? =
            switch (search, whereFilter) {
            case (let search?, let whereFilter?): search && whereFilter
            case (let search?, nil): search.sqlExpression
            case (nil, _): whereFilter
            }
        if let filter { request = request.filter(filter) }
        let facets = try Facet.resolve(self.facets, size: facetSize, schema: schema, db: db)
        var orderings: [any SQLOrderingTerm] = []
        for option in sort {
            for (term, position) in Self.terms(option) {
                let descending = term.hasPrefix("-")
                let name = descending || term.hasPrefix("+") ? String(term.dropFirst()) : term
                let namePosition = position + term.count - name.count
                let column = try Self.column(
                    name, option: "--sort", text: option, position: namePosition, schema: schema, db: db
                ).expression
                orderings.append(descending ? column.desc : term.hasPrefix("+") ? column.asc : column.sqlOrdering)
            }
        }
        if let rank { orderings.append(rank) }
        if !orderings.isEmpty { request = request.sort(orderings) }
        var selection: [any SQLExpressible] = []
        for option in columns {
            for (name, position) in Self.terms(option) {
                let path = try Self.column(
                    name, option: "--columns", text: option, position: position, schema: schema, db: db)
                // A followed column is headed by its dotted name, not by the subquery's text.
                selection.append(path.hops.isEmpty ? path.expression : path.expression.named(path.name))
            }
        }
        if !selection.isEmpty { request = request.select(selection) }
        let (limit, offset) = (self.limit, self.offset)
        if limit != nil || offset != nil {
            // SQLite reads a negative limit as "no limit", which OFFSET needs.
            request = request.limit(limit ?? -1, offset: offset)
        }
        return TableQuery(request: request, counts: count, filter: filter, facets: facets)
    }

    /// The values that options other than `--where` bind, for the message of a filter that
    /// binds too many: "--limit and --offset take 2 of them".
    static func reservation(_ values: [(option: String, count: Int)]) -> (count: Int, reason: String)? {
        guard let last = values.last else { return nil }
        let count = values.map(\.count).reduce(0, +)
        let names =
            values.count == 1
            ? last.option : values.dropLast().map(\.option).joined(separator: ", ") + " and " + last.option
        return (count, names + (values.count == 1 ? " takes " : " take ") + "\(count) of them")
    }

    /// The comma-separated terms of an option, trimmed, with where each starts. A comma inside
    /// a double-quoted name belongs to the name.
    static func terms(_ option: String) -> [(String, Int)] {
        var parts: [Substring] = []
        var start = option.startIndex
        var quoted = false
        for index in option.indices {
            if option[index] == "\"" {
                quoted.toggle()
            } else if option[index] == ",", !quoted {
                parts.append(option[start..<index])
                start = option.index(after: index)
            }
        }
        parts.append(option[start...])
        var terms: [(String, Int)] = []
        var position = 0
        for part in parts {
            let leading = part.prefix { $0 == " " }.count
            var term = String(part.dropFirst(leading))
            while term.last == " " { term.removeLast() }
            terms.append((term, position + leading))
            position += part.count + 1
        }
        return terms
    }

    /// The column a term names, a dotted name following foreign keys, or an error pointing at
    /// the step that failed in the option.
    static func column(
        _ name: String, option: String, text: String, position: Int, schema: TableSchema, db: Database
    ) throws -> ForeignKeyPath {
        guard !name.isEmpty else {
            throw FilterError(
                reason: .syntax("a column name is missing"), expression: text, position: position, length: 1,
                option: option)
        }
        return try ForeignKeyPath.resolve(name, at: position, in: text, option: option, from: schema, db: db)
    }
}
