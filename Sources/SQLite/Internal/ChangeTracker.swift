import CSQLite

#if canImport(Glibc)
    import Glibc
#endif

/// Collects a connection's changes from SQLite's update, commit and rollback hooks, and hands
/// each committed change set to the connection's observers once the commit has completed.
///
/// Hooks run inside `sqlite3_step`, where calling back into SQLite is forbidden; so they only
/// record, and delivery waits until the statement has finished stepping.
///
/// Recording is on the path of every write, so it allocates nothing once a table has been
/// seen: a row is matched to its table by comparing the name's bytes with the previous row's,
/// and the per-table storage (name and rowid list) is cleared in place after each commit.
@usableFromInline
final class ChangeTracker {
    /// The open transaction's changes, in storage shared with every commit before it.
    @exclusivity(unchecked) private var pending = DatabaseChanges()
    /// Indexes in `pending.storage` of the tables changed in the open transaction.
    @exclusivity(unchecked) private var changedIndexes: [Int] = []
    /// The names as SQLite's update hook spells them (a C string each), with the index of their
    /// table in `pending.storage`; a table declared in mixed case has two spellings.
    @exclusivity(unchecked) private var spellings: [(name: [CChar], index: Int)] = []
    /// The spelling of the last row's table: the next row is almost always in the same table.
    @exclusivity(unchecked) private var lastSpelling = -1
    /// Set by the commit hook, cleared once the commit has been delivered or has failed.
    @exclusivity(unchecked) private var isCommitting = false
    /// For each open savepoint, the changes made before it: its rollback restores them.
    private var savepoints: [[(index: Int, rowids: [Int64])]] = []
    @exclusivity(unchecked) private var observers:
        [(id: Int, body: (DatabaseChanges) -> Void, tables: ObservedTables?)] = []
    /// Per table of `pending.storage`: whether an observer selects it, as of an
    /// `ObservedTables.version`.
    @exclusivity(unchecked) private var interest: [(version: UInt64, isObserved: Bool)] = []
    private var nextObserverID = 0
    /// The read-region recordings in progress on the connection, innermost last.
    var statementRecordings: [StatementRecording] = []

    /// True once the hooks are installed. Statements check it before calling in, so a
    /// connection nobody observes pays one load per step and nothing more.
    @usableFromInline @exclusivity(unchecked) var isActive = false

    /// Installs the hooks on `connection`. The tracker must outlive the hooks: the database
    /// owns it and removes the hooks before it goes.
    func install(on connection: OpaquePointer) {
        isActive = true
        let context = Unmanaged.passUnretained(self).toOpaque()
        sqlite3_update_hook(
            connection,
            { context, _, _, table, rowid in
                guard let context, let table else { return }
                Unmanaged<ChangeTracker>.fromOpaque(context).takeUnretainedValue().rowChanged(
                    table: table, rowid: rowid)
            }, context)
        sqlite3_commit_hook(
            connection,
            { context in
                guard let context else { return 0 }
                Unmanaged<ChangeTracker>.fromOpaque(context).takeUnretainedValue().willCommit()
                return 0
            }, context)
        sqlite3_rollback_hook(
            connection,
            { context in
                guard let context else { return }
                Unmanaged<ChangeTracker>.fromOpaque(context).takeUnretainedValue().didRollback()
            }, context)
    }

    static func uninstall(from connection: OpaquePointer) {
        sqlite3_update_hook(connection, nil, nil)
        sqlite3_commit_hook(connection, nil, nil)
        sqlite3_rollback_hook(connection, nil, nil)
    }

    func addObserver(_ body: @escaping (DatabaseChanges) -> Void) -> Int {
        nextObserverID += 1
        observers.append((nextObserverID, body, nil))
        ObservedTables.version.add(1, ordering: .releasing)
        return nextObserverID
    }

    func select(_ tables: ObservedTables, for id: Int) {
        guard let index = observers.firstIndex(where: { $0.id == id }) else { return }
        observers[index].tables = tables
        ObservedTables.version.add(1, ordering: .releasing)
    }

    func removeObserver(_ id: Int) {
        observers.removeAll { $0.id == id }
        ObservedTables.version.add(1, ordering: .releasing)
    }

    // MARK: Hooks

    private func rowChanged(table: UnsafePointer<CChar>, rowid: Int64) {
        let index: Int
        if lastSpelling >= 0,
            spellings[lastSpelling].name.withUnsafeBufferPointer({ strcmp($0.baseAddress!, table) == 0 })
        {
            index = spellings[lastSpelling].index
        } else {
            index = tableIndex(spelledAs: table)
        }
        markChanged(index)
        pending.storage[index].rowids.append(rowid)
    }

    /// Tables a statement writes, for changes the update hook does not report (a table
    /// `WITHOUT ROWID`).
    @usableFromInline
    func tablesWritten(_ tables: Set<String>) {
        for table in tables { markChanged(tableIndex(named: table)) }
    }

    private func willCommit() {
        if !changedIndexes.isEmpty { isCommitting = true }
    }

    private func didRollback() {
        clearPending()
        isCommitting = false
        savepoints.removeAll()
    }

    // MARK: Savepoints

    func beginSavepoint() {
        savepoints.append(changedIndexes.map { ($0, pending.storage[$0].rowids) })
    }

    func releaseSavepoint() { _ = savepoints.popLast() }

    func rollbackSavepoint() {
        guard let before = savepoints.popLast() else { return }
        clearPending()
        for (index, rowids) in before {
            markChanged(index)
            pending.storage[index].rowids = rowids
        }
    }

    // MARK: Delivery

    /// Called when a statement stops stepping. Delivers a completed commit; after a commit that
    /// failed once its hook had run (the transaction is still open) the changes stay pending.
    @usableFromInline
    func statementDidFinish(connection: OpaquePointer) {
        guard isCommitting else { return }
        isCommitting = false
        if sqlite3_get_autocommit(connection) == 0 { return }
        savepoints.removeAll()
        if isObserved() {
            for observer in observers where observer.tables.map(selectsChange) ?? true { observer.body(pending) }
        }
        clearPending()
    }

    private func selectsChange(_ tables: ObservedTables) -> Bool {
        changedIndexes.contains { tables.contains(pending.storage[$0].name) }
    }

    /// True when an observer selects one of the changed tables. Rows are recorded whatever the
    /// selection, and it is read only now, at commit, so that a selection updated while the
    /// transaction ran still applies to it.
    private func isObserved() -> Bool {
        let version = ObservedTables.version.load(ordering: .acquiring)
        for index in changedIndexes {
            if interest[index].version != version {
                let name = pending.storage[index].name
                interest[index] = (version, observers.contains { $0.tables?.contains(name) ?? true })
            }
            if interest[index].isObserved { return true }
        }
        return false
    }

    // MARK: Tables

    private func markChanged(_ index: Int) {
        if !pending.storage[index].isChanged {
            pending.storage[index].isChanged = true
            changedIndexes.append(index)
        }
    }

    /// Forgets the open transaction's changes, keeping each table's storage for the next one
    /// (unless a large change made it big).
    private func clearPending() {
        for index in changedIndexes {
            pending.storage[index].isChanged = false
            if pending.storage[index].rowids.capacity > 1024 {
                pending.storage[index].rowids = []
            } else {
                pending.storage[index].rowids.removeAll(keepingCapacity: true)
            }
        }
        changedIndexes.removeAll(keepingCapacity: true)
    }

    private func tableIndex(spelledAs table: UnsafePointer<CChar>) -> Int {
        for (position, spelling) in spellings.enumerated()
        where spelling.name.withUnsafeBufferPointer({ strcmp($0.baseAddress!, table) == 0 }) {
            lastSpelling = position
            return spelling.index
        }
        let index = tableIndex(named: String(cString: table).lowercased())
        spellings.append((Array(UnsafeBufferPointer(start: table, count: strlen(table) + 1)), index))
        lastSpelling = spellings.count - 1
        return index
    }

    private func tableIndex(named name: String) -> Int {
        if let index = pending.storage.firstIndex(where: { $0.name == name }) { return index }
        pending.storage.append(DatabaseChanges.Table(name: name, rowids: [], isChanged: false))
        interest.append((0, false))
        return pending.storage.count - 1
    }
}
