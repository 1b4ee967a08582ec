import SQLite

/// The rows of a query as plain values, with their column names: what `watch` keeps and
/// compares, and what `tables` and `schema` print.
struct ResultSet: Hashable, Sendable {
    var columns: [String]
    var rows: [[DatabaseValue]]
    /// The counts of `--facet`, fetched with the rows.
    var facets: [Facet.Counts] = []
    /// Text that is not UTF-8, as stored, by row and then column: `rows` holds it as `String`
    /// repairs it, with U+FFFD for each bad sequence, which a writer must not take for the value.
    var invalidText: [Int: [Int: [UInt8]]] = [:]

    static let empty = ResultSet(columns: [], rows: [])

    /// The result of `--count`: one row, one column.
    static func count(_ count: Int) -> ResultSet {
        ResultSet(columns: ["count"], rows: [[.integer(Int64(count))]])
    }

    /// Runs `sql` and collects every row, within `budget`.
    static func fetch(
        _ db: Database, sql: String, arguments: [DatabaseValue], budget: inout ByteBudget
    ) throws -> ResultSet {
        let statement = try db.makeStatement(sql)
        try statement.bind(arguments)
        defer { statement.reset() }
        var result = ResultSet(columns: statement.columnNames, rows: [])
        while try statement.step() {
            try budget.charge(row: statement)
            var invalid: [Int: [UInt8]] = [:]
            let row = (0..<statement.columnCount).map { column in
                Cell.withColumn(statement.sqliteHandle, Int32(column)) { cell in
                    if case .invalidText(let bytes) = cell { invalid[column] = Array(bytes) }
                }
                return statement.value(at: column)
            }
            if !invalid.isEmpty { result.invalidText[result.rows.count] = invalid }
            result.rows.append(row)
        }
        return result
    }

    /// Runs `sql` and collects every row.
    static func fetch(_ db: Database, sql: String, arguments: [DatabaseValue]) throws -> ResultSet {
        var budget = ByteBudget.unlimited
        return try fetch(db, sql: sql, arguments: arguments, budget: &budget)
    }
}
