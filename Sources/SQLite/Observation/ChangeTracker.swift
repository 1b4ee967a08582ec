import CSQLite

/// Collects a connection's changes from SQLite's update, commit and rollback hooks, and hands
/// each committed change set to the connection's observers once the commit has completed.
///
/// Hooks run inside `sqlite3_step`, where calling back into SQLite is forbidden; so they only
/// record, and delivery waits until the statement has finished stepping.
@usableFromInline
final class ChangeTracker {
    private var pending: [String: Set<Int64>] = [:]
    private var committed: [String: Set<Int64>]?
    private var savepoints: [[String: Set<Int64>]] = []
    private var observers: [(id: Int, body: (DatabaseChanges) -> Void)] = []
    private var nextObserverID = 0

    /// True once the hooks are installed. Statements check it before calling in, so a
    /// connection nobody observes pays one load per step and nothing more.
    @usableFromInline @exclusivity(unchecked) var isActive = false

    var hasObservers: Bool { !observers.isEmpty }

    /// Installs the hooks on `connection`. The tracker must outlive the hooks: the database
    /// owns it and removes the hooks before it goes.
    func install(on connection: OpaquePointer) {
        isActive = true
        let context = Unmanaged.passUnretained(self).toOpaque()
        sqlite3_update_hook(connection, { context, _, _, table, rowid in
            guard let context, let table else { return }
            Unmanaged<ChangeTracker>.fromOpaque(context).takeUnretainedValue()
                .rowChanged(table: String(cString: table), rowid: rowid)
        }, context)
        sqlite3_commit_hook(connection, { context in
            guard let context else { return 0 }
            Unmanaged<ChangeTracker>.fromOpaque(context).takeUnretainedValue().willCommit()
            return 0
        }, context)
        sqlite3_rollback_hook(connection, { context in
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
        observers.append((nextObserverID, body))
        return nextObserverID
    }

    func removeObserver(_ id: Int) {
        observers.removeAll { $0.id == id }
    }

    // MARK: Hooks

    private func rowChanged(table: String, rowid: Int64) {
        pending[table.lowercased(), default: []].insert(rowid)
    }

    /// Tables a statement writes, for changes the update hook does not report (a table
    /// `WITHOUT ROWID`).
    @usableFromInline
    func tablesWritten(_ tables: Set<String>) {
        for table in tables where pending[table] == nil { pending[table] = [] }
    }

    private func willCommit() {
        if pending.isEmpty { return }
        committed = pending
        pending = [:]
    }

    private func didRollback() {
        pending = [:]
        committed = nil
        savepoints.removeAll()
    }

    // MARK: Savepoints

    func beginSavepoint() { savepoints.append(pending) }

    func releaseSavepoint() { _ = savepoints.popLast() }

    func rollbackSavepoint() {
        if let snapshot = savepoints.popLast() { pending = snapshot }
    }

    // MARK: Delivery

    /// Called when a statement stops stepping. Delivers a completed commit; a commit that failed
    /// after its hook ran (the transaction is still open) puts its changes back.
    @usableFromInline
    func statementDidFinish(connection: OpaquePointer) {
        guard let changes = committed else { return }
        committed = nil
        if sqlite3_get_autocommit(connection) == 0 {
            for (table, rowids) in changes { pending[table, default: []].formUnion(rowids) }
            return
        }
        savepoints.removeAll()
        let delivered = DatabaseChanges(tables: changes)
        for observer in observers { observer.body(delivered) }
    }
}
