import CSQLite
import SQLite

/// The most bytes of values one answer may hold, counted row by row as they are read, so that
/// a query that selects huge values is refused before it fills the memory: `sqlq serve` gives
/// each request one budget for its rows, facets and SQL results.
struct ByteBudget: Sendable {
    /// What an answer of `sqlq serve` may hold: far above any page a browser shows, and low
    /// enough that a few at once, encoded, fit in a small machine's memory.
    static let serve = ByteBudget(limit: 32 << 20)
    /// No limit: what the command line's own fetches use.
    static let unlimited = ByteBudget(limit: .max)

    /// The most bytes the answer may hold.
    let limit: Int
    /// The bytes counted so far.
    private(set) var used = 0

    init(limit: Int) { self.limit = limit }

    /// Counts the values of the row `statement` stands on: a text or a blob by its bytes, any
    /// other value as 8.
    mutating func charge(row statement: Statement) throws {
        guard limit != .max else { return }
        let handle = statement.sqliteHandle
        var bytes = 0
        for column in 0..<Int32(statement.columnCount) {
            switch sqlite3_column_type(handle, column) {
            // Asked only of text and blobs, which it does not convert.
            case SQLITE_TEXT, SQLITE_BLOB: bytes += Int(sqlite3_column_bytes(handle, column))
            default: bytes += 8
            }
        }
        try charge(bytes: bytes)
    }

    /// Counts `bytes` more.
    mutating func charge(bytes: Int) throws {
        used = used.addingReportingOverflow(bytes).overflow ? .max : used + bytes
        guard used <= limit else { throw Exceeded(limit: limit) }
    }

    /// The answer would hold more than ``ByteBudget/limit`` bytes.
    struct Exceeded: Error, CustomStringConvertible {
        var limit: Int
        var description: String {
            "the answer would hold more than \(limit >> 20) MB of values, the most one answer holds; "
                + "ask for fewer rows (size=), fewer columns (columns=), or shorter values (substr(), length())"
        }
    }
}
