/// A type decoded from a row by hand: the fastest way to fetch records.
///
/// ```swift
/// struct Item: FetchableRow {
///     var id: Int64, title: String, done: Bool
///     init(row: BorrowedRow) throws {
///         id = try row[0]
///         title = try row[1]
///         done = try row[2]
///     }
/// }
/// let items = try db.fetchAll(Item.self, "SELECT id, title, done FROM items")
/// ```
///
/// The row reads straight from the statement and is valid only during this call; use
/// ``BorrowedRow/copy()`` to keep it.
public protocol FetchableRow {
    /// Decodes one row. Throw (typically by letting a typed `row[…]` read throw) when it does not fit.
    init(row: BorrowedRow) throws
}
