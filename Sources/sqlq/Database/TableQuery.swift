import SQLite

/// One dynamic query of `query`, `watch` and `delete`: an untyped request on a table, built from
/// the command line, Hashable so that `watch` can observe it through a `SharedReader`.
struct TableQuery: FetchKeyRequest {
    var request: QueryInterfaceRequest<Row>
    /// `--count`: the number of rows instead of the rows.
    var counts: Bool
    /// The search and the `--where` filter, without the sort and the limit: the facets count
    /// within it.
    var filter: SQLExpression? = nil
    var facets: [Facet] = []

    /// The SQL that runs, and its arguments.
    var sql: String { counts ? request.countSQL : request.sql }
    var arguments: [DatabaseValue] { counts ? request.countArguments : request.arguments }

    func fetch(_ db: Database) throws -> ResultSet {
        if counts { return .count(try request.fetchCount(db)) }
        var result = try ResultSet.fetch(db, sql: sql, arguments: arguments)
        result.facets = try fetchFacets(db)
        return result
    }

    /// The counts of every facet, in the order given.
    func fetchFacets(_ db: Database, budget: inout ByteBudget) throws -> [Facet.Counts] {
        var counts: [Facet.Counts] = []
        for facet in facets {
            counts.append(try facet.fetch(db, table: request.tableName, filter: filter, budget: &budget))
        }
        return counts
    }

    /// The counts of every facet, in the order given.
    func fetchFacets(_ db: Database) throws -> [Facet.Counts] {
        var budget = ByteBudget.unlimited
        return try fetchFacets(db, budget: &budget)
    }

    /// The SQL, its arguments and SQLite's plan for it, as SQL comments below the statement:
    ///
    ///     SELECT * FROM "items" WHERE "priority" >= ? ORDER BY "due" DESC LIMIT ?
    ///     -- arguments: 3, 10
    ///     -- plan:
    ///     --   SEARCH items USING INDEX items_by_priority (priority>?)
    ///
    /// Each facet's statement follows, explained the same way.
    func explanation(_ db: Database) throws -> String {
        var text = try Self.explanation(db, sql: sql, arguments: arguments)
        for facet in facets {
            let (sql, arguments) = facet.statement(table: request.tableName, filter: filter)
            text += "\n" + (try Self.explanation(db, sql: sql, arguments: arguments))
        }
        return text
    }

    private static func explanation(_ db: Database, sql: String, arguments: [DatabaseValue]) throws -> String {
        var text = sql + "\n"
        text +=
            "-- arguments: " + (arguments.isEmpty ? "none" : arguments.map(literal).joined(separator: ", "))
            + "\n"
        text += "-- plan:\n"
        var depths: [Int64: Int] = [:]
        for row in try db.fetchAll("EXPLAIN QUERY PLAN " + sql, arguments) {
            let id: Int64 = try row[0]
            let parent: Int64 = try row[1]
            let detail: String = try row[3]
            let depth = (depths[parent] ?? 0) + 1
            depths[id] = depth
            text += "-- " + String(repeating: "  ", count: depth) + detail + "\n"
        }
        return text
    }

    /// `value` as a SQL literal that reads back as the same value, on one line: text with line
    /// breaks or other control characters is a concatenation (`'a' || char(10) || 'b'`), so
    /// that nothing in a value can end the `--` comment it is printed in.
    static func literal(_ value: DatabaseValue) -> String {
        switch value {
        case .null, .integer, .blob:
            return value.description
        case .real(let number):
            if number.isNaN { return "NULL" }
            // SQLite reads a literal too large for a double as an infinity.
            if number.isInfinite { return number < 0 ? "-9e999" : "9e999" }
            return String(number)
        case .text(let text):
            var parts: [String] = []
            var run = ""
            for scalar in text.unicodeScalars {
                if isLineBreaking(scalar) {
                    if !run.isEmpty { parts.append("'" + run + "'") }
                    run = ""
                    parts.append("char(\(scalar.value))")
                } else {
                    run.unicodeScalars.append(scalar)
                    if scalar == "'" { run.unicodeScalars.append("'") }
                }
            }
            if !run.isEmpty || parts.isEmpty { parts.append("'" + run + "'") }
            return parts.joined(separator: " || ")
        }
    }

    /// Control characters, the Unicode line and paragraph separators, and the bidirectional
    /// controls that can make a line show other text than it holds.
    static func isLineBreaking(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0..<0x20, 0x7F...0x9F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }
}
