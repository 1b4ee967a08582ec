/// What one committed transaction changed: the tables, and the rowids that SQLite's update hook
/// reported for each.
///
/// Delivered to the observers added with ``Database/addChangeObserver(_:)`` after the commit.
public struct DatabaseChanges: Hashable, Sendable, CustomStringConvertible {
    /// Table name (lowercased) → rowids inserted, updated or deleted. A table of a `WITHOUT ROWID`
    /// kind, or changed in a way the hook does not report row by row, has an empty set.
    public var tables: [String: Set<Int64>]

    public init(tables: [String: Set<Int64>] = [:]) {
        self.tables = tables
    }

    /// True when nothing changed.
    public var isEmpty: Bool { tables.isEmpty }

    public var description: String {
        tables.keys.sorted().map { "\($0): \(tables[$0]!.count) row(s)" }.joined(separator: ", ")
    }
}
