/// The part of one table a query reads, finer than the table: some of its columns, and the rows
/// that may satisfy its filters. A changed row outside it cannot change the query's result.
///
/// Found by `Database.recordingReadRegion(scopingRows:_:)` (SQLite) for tables that SQLite's
/// pre-update hook reports row by row (ordinary tables of the main database).
///
/// A change is skipped only where Swift decides exactly as SQLite would that it cannot change
/// the query's result; wherever it cannot tell, the change counts (see ``RowFilter``). Values
/// count as changed unless they are identical as stored: text by its bytes, not by Swift's
/// canonical equivalence.
public struct RowScope: Hashable, Sendable {
    /// How many values a row of the table has; a row of another shape (the schema changed)
    /// is not tested, and counts as read.
    public let columnCount: Int
    /// The indexes of the columns read, or nil for every column.
    public let readColumns: Set<Int>?
    /// The rows read are those that may satisfy one of these, or every row when nil.
    public let filters: [RowFilter]?
    /// The columns with a default other than NULL: in a row stored before such a column was
    /// added (`ALTER TABLE … ADD COLUMN … DEFAULT`), SQLite's pre-update hook reports the old
    /// value as NULL instead of the default, so an old NULL there is not known.
    public let defaultedColumns: Set<Int>

    package init(columnCount: Int, readColumns: Set<Int>?, filters: [RowFilter]?, defaultedColumns: Set<Int> = []) {
        self.columnCount = columnCount
        self.readColumns = readColumns
        self.filters = filters
        self.defaultedColumns = defaultedColumns
    }

    /// True when changing `old` into `new` (nil for an insert's old row or a delete's new row)
    /// may change what the query reads.
    public func isAffected(old: [DatabaseValue]?, new: [DatabaseValue]?) -> Bool {
        guard old.map({ $0.count == columnCount }) ?? true, new.map({ $0.count == columnCount }) ?? true else {
            return true
        }
        if let old, let new, let readColumns, !readColumns.contains(where: { isChanged($0, old, new) }) {
            return false
        }
        guard let filters else { return true }
        for filter in filters {
            if let old, filter.mayMatch(old, isOld: true) { return true }
            if let new, filter.mayMatch(new) { return true }
        }
        return false
    }

    private func isChanged(_ column: Int, _ old: [DatabaseValue], _ new: [DatabaseValue]) -> Bool {
        if old[column].isNull && defaultedColumns.contains(column) { return true }
        return !old[column].isIdentical(to: new[column])
    }

    /// The scope of a query that reads what either of two scopes reads, or nil when the table's
    /// shape differs between them.
    package func union(_ other: RowScope) -> RowScope? {
        guard columnCount == other.columnCount else { return nil }
        let columns = readColumns.flatMap { mine in other.readColumns.map { mine.union($0) } }
        let filters = filters.flatMap { mine in other.filters.map { mine + $0 } }
        return RowScope(
            columnCount: columnCount, readColumns: columns, filters: filters,
            defaultedColumns: defaultedColumns.union(other.defaultedColumns))
    }
}
