import Locking
import Synchronization

/// The tables a change observer wants to hear about: a connection does not deliver the commits
/// that touch none of them, and checking costs it almost nothing. The selection can change at
/// any time, from any thread.
///
/// ```swift
/// let tables = ObservedTables(["items"])
/// db.addChangeObserver(observing: tables) { changes in reload() }   // only commits touching items
/// tables.update(["items", "lists"])
/// ```
public final class ObservedTables: Sendable {
    private struct Selection {
        var tables: Set<String>
        var all: Bool
        /// Tables whose changed rows the observer wants, with their values.
        var rowTables: Set<String> = []
        /// Of `rowTables`, those whose inserted and deleted rows are not wanted.
        var updatesOnly: Set<String> = []
    }

    /// Which changed rows of a table an observer wants.
    enum RowInterest: Comparable {
        case none
        /// Updated rows only: an insert or a delete reports the table whole.
        case updates
        case all
    }

    private let selection: Lock<Selection>

    /// Moves on every update of any selection, so that a connection can keep its answer per
    /// table and check that it still holds with one atomic load.
    static let version = Atomic<UInt64>(1)

    /// Selects `tables` (in any ASCII case), or every table with `all`.
    public init(_ tables: some Sequence<String> = [String](), all: Bool = false) {
        selection = Lock(Selection(tables: Set(tables.map(\.sqliteFolded)), all: all))
    }

    /// Replaces the selection.
    public func update(_ tables: some Sequence<String>, all: Bool = false) {
        let tables = Set(tables.map(\.sqliteFolded))
        selection.withLock {
            $0.tables = tables
            $0.all = all
        }
        Self.version.add(1, ordering: .releasing)
    }

    /// Asks for the values of each changed row of `tables` (in any ASCII case), before and after, in
    /// `DatabaseChanges.rowChanges(in:)`. Recording them costs each write; none are recorded
    /// while no observer asks.
    ///
    /// For the tables also in `updatesOnly`, only updated rows are recorded, and a transaction
    /// that inserts or deletes a row reports the table whole. That suits an observer that knows
    /// which columns it reads but not which rows: an insert or a delete changes it anyway.
    public func updateRowTables(_ tables: some Sequence<String>, updatesOnly: some Sequence<String> = [String]()) {
        let tables = Set(tables.map(\.sqliteFolded))
        let updatesOnly = Set(updatesOnly.map(\.sqliteFolded)).intersection(tables)
        selection.withLock {
            $0.rowTables = tables
            $0.updatesOnly = updatesOnly
        }
        Self.version.add(1, ordering: .releasing)
    }

    /// Which changed rows of `table` (ASCII-lowercased) are wanted.
    func rowInterest(in table: String) -> RowInterest {
        selection.withLock {
            guard $0.rowTables.contains(table) else { return .none }
            return $0.updatesOnly.contains(table) ? .updates : .all
        }
    }

    /// True when the rows of some table are wanted.
    var wantsRows: Bool {
        selection.withLock { !$0.rowTables.isEmpty }
    }

    /// True when `table` (ASCII-lowercased) is selected.
    public func contains(_ table: String) -> Bool {
        selection.withLock { $0.all || $0.tables.contains(table) }
    }
}

extension Database {
    /// Like ``addChangeObserver(_:)``, for commits that change at least one of `tables`.
    ///
    /// ```swift
    /// let tables = ObservedTables(["items"])
    /// db.addChangeObserver(observing: tables) { changes in print(changes) }
    /// ```
    @discardableResult
    public func addChangeObserver(
        observing tables: ObservedTables, _ observer: @escaping (DatabaseChanges) -> Void
    ) -> ChangeObserverToken {
        let token = addChangeObserver(observer)
        tracker.select(tables, for: token.id)
        return token
    }
}
