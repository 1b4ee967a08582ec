import SQLite

/// Writes a result in one output format: the column names first, then each row, then the end.
///
/// Streaming formats write each row as it comes; the table and Markdown formats keep the rows
/// until the end, since column widths depend on every row.
protocol RowWriter {
    func begin(columns: [String])
    func write(row: [SQLiteValue])
    func end()
}

extension RowWriter {
    /// Writes a whole result.
    func write(_ result: ResultSet) {
        begin(columns: result.columns)
        for row in result.rows { write(row: row) }
        end()
    }
}

extension SQLiteValue {
    /// The value as text in a cell: numbers as Swift prints them (the shortest form that reads
    /// back to the same value), text as is, blobs in SQL's `X'…'` notation, NULL as `NULL`.
    var cellText: String {
        switch self {
        case .null: "NULL"
        case .integer(let value): String(value)
        case .real(let value): String(value)
        case .text(let value): value
        case .blob: description
        }
    }

    var isNumber: Bool {
        switch self {
        case .integer, .real: true
        default: false
        }
    }
}
