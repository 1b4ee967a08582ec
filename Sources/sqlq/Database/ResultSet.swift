import SQLite

/// The rows of a query as plain values, with their column names: what `watch` keeps and
/// compares, and what `tables` and `schema` print.
struct ResultSet: Hashable, Sendable {
    var columns: [String]
    var rows: [[DatabaseValue]]
    /// The counts of `--facet`, fetched with the rows.
    var facets: [Facet.Counts] = []

    static let empty = ResultSet(columns: [], rows: [])

    /// The result of `--count`: one row, one column.
    static func count(_ count: Int) -> ResultSet {
        ResultSet(columns: ["count"], rows: [[.integer(Int64(count))]])
    }

    /// Runs `sql` and collects every row.
    static func fetch(_ db: Database, sql: String, arguments: [DatabaseValue]) throws -> ResultSet {
        let statement = try db.makeStatement(sql)
        try statement.bind(arguments)
        defer { statement.reset() }
        var result = ResultSet(columns: statement.columnNames, rows: [])
        while try statement.step() {
            result.rows.append((0..<statement.columnCount).map { statement.value(at: $0) })
        }
        return result
    }
}
