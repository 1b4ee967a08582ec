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
    /// Which changed rows of a table an observer wants.
    enum RowInterest: Comparable {
        case none
        /// Updated rows only: an insert or a delete reports the table whole.
        case updates
        case all
    }

    private let selection: Lock<TableSelection>
    /// The versions of the connections whose observers use this selection, moved by each update.
    private let dependents = Lock<[WeakSelectionVersion]>([])

    /// Selects `tables` (in any ASCII case), or every table with `all`.
    public init(_ tables: some Sequence<String> = [String](), all: Bool = false) {
        selection = Lock(TableSelection(tables: Set(tables.map(\.sqliteFolded)), all: all))
    }

    /// Replaces the selection.
    public func update(_ tables: some Sequence<String>, all: Bool = false) {
        let tables = Set(tables.map(\.sqliteFolded))
        selection.withLock {
            $0.tables = tables
            $0.all = all
        }
        didUpdate()
    }

    /// Replaces the whole selection at once: tables and rows, with names already ASCII-lowercased.
    package func update(_ selection: TableSelection) {
        self.selection.withLock { $0 = selection }
        didUpdate()
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
        didUpdate()
    }

    /// Makes each update of this selection move `version`.
    func attach(_ version: SelectionVersion) {
        dependents.withLock { dependents in
            if !dependents.contains(where: { $0.version === version }) {
                dependents.append(WeakSelectionVersion(version: version))
            }
        }
    }

    /// After the selection changed, so that a connection that sees the new version reads the
    /// new selection.
    private func didUpdate() {
        let versions = dependents.withLock { dependents in
            dependents.removeAll { $0.version == nil }
            return dependents.compactMap(\.version)
        }
        for version in versions { version.move() }
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
        selection.withLock { $0.contains(table) }
    }
}

/// A connection's count of changes to what its observers select: its observers added or
/// removed, or their `ObservedTables` updated. The connection keeps its answer per table with
/// the version it was computed at, and checks that it still holds with one atomic load. One per
/// connection, so that updating one database's selection costs another database nothing.
final class SelectionVersion: Sendable {
    private let value = Atomic<UInt64>(1)

    func move() { value.add(1, ordering: .releasing) }

    func load() -> UInt64 { value.load(ordering: .acquiring) }
}

private struct WeakSelectionVersion {
    weak var version: SelectionVersion?
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
