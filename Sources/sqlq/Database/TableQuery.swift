import SQLite

/// One dynamic query of `query`, `watch` and `delete`: an untyped request on a table, built from
/// the command line, Hashable so that `watch` can observe it through a `SharedReader`.
struct TableQuery: FetchKeyRequest {
    var request: QueryInterfaceRequest<Row>
    /// `--count`: the number of rows instead of the rows.
    var counts: Bool

    /// The SQL that runs, and its arguments.
    var sql: String { counts ? request.countSQL : request.sql }
    var arguments: [SQLiteValue] { counts ? request.countArguments : request.arguments }

    func fetch(_ db: Database) throws -> ResultSet {
        if counts { return .count(try request.fetchCount(db)) }
        return try ResultSet.fetch(db, sql: sql, arguments: arguments)
    }

    /// The SQL, its arguments and SQLite's plan for it, as SQL comments below the statement:
    ///
    ///     SELECT * FROM "items" WHERE "priority" >= ? ORDER BY "due" DESC LIMIT ?
    ///     -- arguments: 3, 10
    ///     -- plan:
    ///     --   SEARCH items USING INDEX items_by_priority (priority>?)
    func explanation(_ db: Database) throws -> String {
        var text = sql + "\n"
        let arguments = self.arguments
        text +=
            "-- arguments: " + (arguments.isEmpty ? "none" : arguments.map(\.description).joined(separator: ", "))
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
}
