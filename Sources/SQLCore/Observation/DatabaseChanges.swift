/// What one committed transaction changed: the tables, and the rowids that SQLite's update hook
/// reported for each.
///
/// Delivered to the observers added with `Database.addChangeObserver(_:)` (SQLite) after the commit.
///
/// ```swift
/// db.addChangeObserver { changes in
///     if changes.contains(table: "items") { reloadItems() }
/// }
/// ```
public struct DatabaseChanges: Hashable, Sendable, CustomStringConvertible {
    package struct Table: Sendable {
        /// Lowercased.
        package var name: String
        /// In the order reported, with repeats: appending is cheaper than hashing for every row.
        package var rowids: [Int64]
        package var isChanged: Bool
        /// Each changed row's values before and after, when SQLite's pre-update hook reported
        /// them.
        package var rows: [RowChange] = []
        /// True while every change to the table in the transaction is in `rows`.
        package var rowsComplete = false

        package init(name: String, rowids: [Int64], isChanged: Bool) {
            self.name = name
            self.rowids = rowids
            self.isChanged = isChanged
        }
    }

    /// One row changed: its values (in the table's column order) before and after. An insert
    /// has no old values, a delete no new ones.
    public struct RowChange: Hashable, Sendable {
        /// The values before the change; nil for an insert.
        public let old: [DatabaseValue]?
        /// The values after the change; nil for a delete.
        public let new: [DatabaseValue]?

        /// A change of `old` into `new`.
        public init(old: [DatabaseValue]?, new: [DatabaseValue]?) {
            self.old = old
            self.new = new
        }
    }

    /// Every table the connection's tracker has seen, changed or not. Only the changed ones
    /// belong to the value: keeping the others lets the tracker reuse this storage, names and
    /// rowid sets included, from one commit to the next, so recording a change allocates nothing.
    package var storage: [Table]

    /// Changes to `tables`: table name → rowids.
    public init(tables: [String: Set<Int64>] = [:]) {
        storage = tables.map { Table(name: $0.key.sqliteFolded, rowids: Array($0.value), isChanged: true) }
    }

    /// Table name (ASCII-lowercased) → rowids inserted, updated or deleted. A table of a `WITHOUT ROWID`
    /// kind, or changed in a way the hook does not report row by row, has an empty set.
    public var tables: [String: Set<Int64>] {
        get {
            var tables: [String: Set<Int64>] = [:]
            for table in storage where table.isChanged { tables[table.name] = Set(table.rowids) }
            return tables
        }
        set { storage = DatabaseChanges(tables: newValue).storage }
    }

    /// The names (ASCII-lowercased) of the changed tables. Unlike ``tables``, reading them builds nothing.
    public var changedTables: ChangedTables { ChangedTables(storage: storage) }

    /// The names of the changed tables.
    public struct ChangedTables: Sequence {
        package let storage: [Table]

        /// Iterates the names of the changed tables.
        public func makeIterator() -> Iterator { Iterator(storage: storage) }

        /// Yields the names of the changed tables, one each.
        public struct Iterator: IteratorProtocol {
            package let storage: [Table]
            package var index = 0

            /// The next changed table, or `nil` after the last.
            public mutating func next() -> String? {
                while index < storage.count {
                    defer { index += 1 }
                    if storage[index].isChanged { return storage[index].name }
                }
                return nil
            }
        }
    }

    /// Every row of `table` (ASCII-lowercased) that changed, with its values before and after; nil
    /// unless all were recorded (only while an observer asks for the rows of the table, and only
    /// for ordinary tables of the main database changed row by row).
    public func rowChanges(in table: String) -> [RowChange]? {
        guard let entry = storage.first(where: { $0.isChanged && $0.name == table }), entry.rowsComplete else {
            return nil
        }
        return entry.rows
    }

    /// True when `table` (ASCII-lowercased) changed.
    public func contains(table: String) -> Bool {
        storage.contains { $0.isChanged && $0.name == table }
    }

    /// True when nothing changed.
    public var isEmpty: Bool { !storage.contains { $0.isChanged } }

    public static func == (lhs: DatabaseChanges, rhs: DatabaseChanges) -> Bool {
        lhs.tables == rhs.tables
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(tables)
    }

    public var description: String {
        let tables = self.tables
        return tables.keys.sorted().map { "\($0): \(tables[$0]!.count) row(s)" }.joined(separator: ", ")
    }
}
