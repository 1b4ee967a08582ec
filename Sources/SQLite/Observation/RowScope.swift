/// The part of one table a query reads, finer than the table: some of its columns, and the rows
/// that may satisfy its filters. A changed row outside it cannot change the query's result.
///
/// Found by ``Database/recordingReadRegion(scopingRows:_:)`` for tables that SQLite's
/// pre-update hook reports row by row (ordinary tables of the main database).
public struct RowScope: Hashable, Sendable {
    /// How many values a row of the table has; a row of another shape (the schema changed)
    /// is not tested, and counts as read.
    public let columnCount: Int
    /// The indexes of the columns read, or nil for every column.
    public let readColumns: Set<Int>?
    /// The rows read are those that may satisfy one of these, or every row when nil.
    public let filters: [RowFilter]?

    /// True when changing `old` into `new` (nil for an insert's old row or a delete's new row)
    /// may change what the query reads.
    public func isAffected(old: [SQLiteValue]?, new: [SQLiteValue]?) -> Bool {
        guard old.map({ $0.count == columnCount }) ?? true, new.map({ $0.count == columnCount }) ?? true else {
            return true
        }
        if let old, let new, let readColumns, !readColumns.contains(where: { old[$0] != new[$0] }) { return false }
        guard let filters else { return true }
        for filter in filters {
            if let old, filter.mayMatch(old) { return true }
            if let new, filter.mayMatch(new) { return true }
        }
        return false
    }

    /// The scope of a query that reads what either of two scopes reads, or nil when the table's
    /// shape differs between them.
    func union(_ other: RowScope) -> RowScope? {
        guard columnCount == other.columnCount else { return nil }
        let columns = readColumns.flatMap { mine in other.readColumns.map { mine.union($0) } }
        let filters = filters.flatMap { mine in other.filters.map { mine + $0 } }
        return RowScope(columnCount: columnCount, readColumns: columns, filters: filters)
    }
}
