import SQLite

/// The rows of a query as plain values, with their column names: what `watch` keeps and
/// compares, and what the table and Markdown formats lay out.
struct ResultSet: Hashable, Sendable {
    var columns: [String]
    var rows: [[SQLiteValue]]

    static let empty = ResultSet(columns: [], rows: [])

    /// The result of `--count`: one row, one column.
    static func count(_ count: Int) -> ResultSet {
        ResultSet(columns: ["count"], rows: [[.integer(Int64(count))]])
    }

    /// Runs `sql` and collects every row.
    static func fetch(_ db: Database, sql: String, arguments: [SQLiteValue]) throws -> ResultSet {
        var result = ResultSet(columns: [], rows: [])
        try forEachRow(db, sql: sql, arguments: arguments) { columns in
            result.columns = columns
        } row: { values in
            result.rows.append(values)
        }
        return result
    }

    /// Runs `sql` and hands each row to `row` as it is read, so that long results stream to
    /// the output instead of piling up in memory.
    static func forEachRow(
        _ db: Database, sql: String, arguments: [SQLiteValue],
        columns: ([String]) throws -> Void, row: ([SQLiteValue]) throws -> Void
    ) throws {
        let statement = try db.makeStatement(sql)
        try statement.bind(arguments)
        defer { statement.reset() }
        let count = statement.columnCount
        try columns(statement.columnNames)
        var values = [SQLiteValue](repeating: .null, count: count)
        while try statement.step() {
            for index in 0..<count { values[index] = statement.value(at: index) }
            try row(values)
        }
    }
}
