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
    /// The open savepoints, outermost first, each with its name and the changes made before it,
    /// which rolling back to it restores.
    private var savepoints: [(name: String, before: [(index: Int, rowids: [Int64])])] = []
    @exclusivity(unchecked) private var observers:
        [(id: Int, body: (DatabaseChanges) -> Void, tables: ObservedTables?)] = []
    /// Moves when what the observers select changes.
    private let selectionVersion = SelectionVersion()
    /// Per table of `pending.storage`: whether an observer selects it, as of a
    /// `selectionVersion`.
    @exclusivity(unchecked) private var interest: [(version: UInt64, isObserved: Bool)] = []
    /// Per table of `pending.storage`: which of its changed rows the observers want, as of a
    /// `selectionVersion`.
    @exclusivity(unchecked) private var rowInterest: [(version: UInt64, interest: ObservedTables.RowInterest)] = []
    /// The connection, once the hooks are installed.
    private var connection: OpaquePointer?
    /// The pre-update hook is installed: some observer wants rows.
    @exclusivity(unchecked) private var recordsRows = false
    /// The `selectionVersion` for which `recordsRows` was decided.
    @exclusivity(unchecked) private var rowsVersion: UInt64 = 0
    /// True while every row change of the open transaction went through the pre-update hook.
    @exclusivity(unchecked) private var transactionRowsComplete = false
    /// The main database's text encoding, read when the pre-update hook is installed and before
    /// each schema change (it is fixed once the first table exists); nil when unknown, and then
    /// no text value is reported.
    @exclusivity(unchecked) private var textEncoding: RowFilter.TextEncoding? = .utf8
    /// Beyond this many rows in one table, a transaction reports the table without its rows:
    /// refetching its readers costs less than keeping and testing them all.
    private static let maxRecordedRows = 4_096
    private var nextObserverID = 0
    /// The connection's authorizer. Statements keep the tracker, and so the authorizer, alive
    /// for as long as SQLite may prepare them again.
    let recorder = RegionRecorder()

    /// True once the hooks are installed. Statements check it before calling in, so a
    /// connection nobody observes pays one load per step and nothing more.
    @usableFromInline @exclusivity(unchecked) var isActive = false

    /// Installs the hooks on `connection`. The tracker must outlive the hooks: the database
    /// owns it and removes the hooks before it goes.
    func install(on connection: OpaquePointer) {
        self.connection = connection
        isActive = true
        recorder.disablesTruncateOptimization = true
        // Installing the authorizer again expires every prepared statement, so that those
        // prepared with the truncate optimization are prepared again without it.
        recorder.install(on: connection)
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
        if let hook = PreupdateHook.functions { _ = hook.install(connection, nil, nil) }
        sqlite3_update_hook(connection, nil, nil)
        sqlite3_commit_hook(connection, nil, nil)
        sqlite3_rollback_hook(connection, nil, nil)
    }

    func addObserver(_ body: @escaping (DatabaseChanges) -> Void) -> Int {
        nextObserverID += 1
        observers.append((nextObserverID, body, nil))
        selectionVersion.move()
        return nextObserverID
    }

    func select(_ tables: ObservedTables, for id: Int) {
        guard let index = observers.firstIndex(where: { $0.id == id }) else { return }
        observers[index].tables = tables
        tables.attach(selectionVersion)
        selectionVersion.move()
    }

    func removeObserver(_ id: Int) {
        observers.removeAll { $0.id == id }
        selectionVersion.move()
    }

    // MARK: Hooks

    private func rowChanged(table: UnsafePointer<CChar>, rowid: Int64) {
        let index = tableIndex(quicklySpelledAs: table)
        markChanged(index)
        pending.storage[index].rowids.append(rowid)
    }

    private func tableIndex(quicklySpelledAs table: UnsafePointer<CChar>) -> Int {
        if lastSpelling >= 0,
            spellings[lastSpelling].name.withUnsafeBufferPointer({ strcmp($0.baseAddress!, table) == 0 })
        {
            return spellings[lastSpelling].index
        }
        return tableIndex(spelledAs: table)
    }

    /// The pre-update hook: records the row's values before and after, for the tables whose
    /// rows an observer wants. Runs inside `sqlite3_step`, so it only reads what the hook offers.
    private func rowWillChange(
        connection: OpaquePointer, operation: Int32, database: UnsafePointer<CChar>, table: UnsafePointer<CChar>,
        oldRowid: Int64, newRowid: Int64
    ) {
        guard let hook = PreupdateHook.functions else { return }
        let index = tableIndex(quicklySpelledAs: table)
        markChanged(index)
        guard pending.storage[index].rowsComplete else { return }
        // Only the main database's tables are scoped by readers; a change elsewhere to a table of
        // the same name is reported whole. So is a table whose observers only skip updates, as
        // soon as a row is inserted or deleted, without reading its values.
        let interest = rowInterest(index)
        guard strcmp(database, "main") == 0, interest == .all || (interest == .updates && operation == SQLITE_UPDATE),
            pending.storage[index].rows.count < Self.maxRecordedRows
        else {
            pending.storage[index].rowsComplete = false
            pending.storage[index].rows = []
            return
        }
        let count = hook.count(connection)
        var isExact = true
        func values(_ read: PreupdateHook.Value) -> [DatabaseValue] {
            var values: [DatabaseValue] = []
            values.reserveCapacity(Int(count))
            for column in 0..<count {
                var value: OpaquePointer?
                _ = read(connection, column, &value)
                if let encoding = textEncoding, let read = PreupdateHook.read(value, encoding: encoding) {
                    values.append(read)
                } else {
                    isExact = false
                    values.append(.null)
                }
            }
            return values
        }
        let old = operation == SQLITE_INSERT ? nil : values(hook.old)
        let new = operation == SQLITE_DELETE ? nil : values(hook.new)
        // An update that moves the row to another rowid changes the order of an unsorted scan
        // even when no value changes: it counts as the old row deleted and the new one inserted.
        let movesRow = operation == SQLITE_UPDATE && oldRowid != newRowid
        guard isExact, !movesRow || interest == .all else {
            pending.storage[index].rowsComplete = false
            pending.storage[index].rows = []
            return
        }
        if movesRow {
            pending.storage[index].rows.append(DatabaseChanges.RowChange(old: old, new: nil))
            pending.storage[index].rows.append(DatabaseChanges.RowChange(old: nil, new: new))
        } else {
            pending.storage[index].rows.append(DatabaseChanges.RowChange(old: old, new: new))
        }
    }

    /// The text encoding of the main database of `connection`, or nil when it cannot be read.
    private static func textEncoding(of connection: OpaquePointer) -> RowFilter.TextEncoding? {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(connection, "PRAGMA main.encoding", -1, &statement, nil) == SQLITE_OK else {
            return nil
        }
        defer { sqlite3_finalize(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW, let text = sqlite3_column_text(statement, 0) else { return nil }
        switch String(cString: text) {
        case "UTF-8": return .utf8
        case "UTF-16le": return .utf16le
        case "UTF-16be": return .utf16be
        default: return nil
        }
    }

    private func rowInterest(_ index: Int) -> ObservedTables.RowInterest {
        let version = selectionVersion.load()
        if rowInterest[index].version != version {
            let name = pending.storage[index].name
            rowInterest[index] = (
                version, observers.lazy.compactMap { $0.tables?.rowInterest(in: name) }.max() ?? .none
            )
        }
        return rowInterest[index].interest
    }

    /// Installs the pre-update hook while some observer wants rows, and removes it when none
    /// does, so that writes nobody scopes pay nothing for it.
    private func updateRowRecording() {
        let version = selectionVersion.load()
        guard version != rowsVersion, let connection else { return }
        rowsVersion = version
        let wanted = PreupdateHook.functions != nil && observers.contains { $0.tables?.wantsRows ?? false }
        guard wanted != recordsRows, let hook = PreupdateHook.functions else { return }
        recordsRows = wanted
        // Rows changed before the hook came are unknown: the open transaction reports whole tables.
        transactionRowsComplete = false
        for index in changedIndexes {
            pending.storage[index].rowsComplete = false
            pending.storage[index].rows = []
        }
        if wanted {
            _ = hook.install(
                connection,
                { context, connection, operation, database, table, oldRowid, newRowid in
                    guard let context, let connection, let database, let table else { return }
                    Unmanaged<ChangeTracker>.fromOpaque(context).takeUnretainedValue().rowWillChange(
                        connection: connection, operation: operation, database: database, table: table,
                        oldRowid: oldRowid, newRowid: newRowid)
                }, Unmanaged.passUnretained(self).toOpaque())
            textEncoding = Self.textEncoding(of: connection)
            // A transaction that changed nothing yet has all its rows ahead of it.
            if changedIndexes.isEmpty { transactionRowsComplete = true }
        } else {
            _ = hook.install(connection, nil, nil)
        }
    }

    /// Called before each step of a statement that writes or controls transactions.
    @usableFromInline
    func statementWillStep(_ statement: Statement) {
        updateRowRecording()
        if recordsRows && statement.changesSchema, let connection { textEncoding = Self.textEncoding(of: connection) }
        // The update hook does not report every change: not those to a table `WITHOUT ROWID`,
        // nor schema changes.
        for table in statement.writtenTables {
            let index = tableIndex(named: table)
            markChanged(index)
            if statement.changesSchema {
                pending.storage[index].rowsComplete = false
                pending.storage[index].rows = []
            }
        }
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

    /// Called when a statement that controls transactions has run to completion:
    /// follows the savepoints, however they were opened. Whole transactions are followed by the
    /// commit and rollback hooks.
    @usableFromInline
    func statementDidRun(_ statement: Statement) {
        guard let control = statement.control else { return }
        switch control {
        case .savepoint(let name):
            savepoints.append((name, changedIndexes.map { ($0, pending.storage[$0].rowids) }))
        case .release(let name):
            // The most recent savepoint of that name goes, with those opened after it.
            if let position = savepoints.lastIndex(where: { $0.name == name }) {
                savepoints.removeSubrange(position...)
            }
        case .rollbackTo(let name):
            // The savepoint stays open; those opened after it go. A savepoint opened before the
            // tracker was installed is unknown: its changes stay reported, which errs on the
            // safe side.
            guard let position = savepoints.lastIndex(where: { $0.name == name }) else { break }
            savepoints.removeSubrange((position + 1)...)
            let rowsComplete = transactionRowsComplete
            clearPending()
            transactionRowsComplete = rowsComplete
            for (index, rowids) in savepoints[position].before {
                markChanged(index)
                pending.storage[index].rowids = rowids
                // The rows recorded before the savepoint are gone with the others: the tables
                // changed before it are reported whole.
                pending.storage[index].rowsComplete = false
            }
        case .begin, .commit, .rollback:
            break
        }
        // A commit that changed nothing is not delivered, and so does not clear the savepoints.
        if sqlite3_get_autocommit(sqlite3_db_handle(statement.handle)) != 0 { savepoints.removeAll() }
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
        let version = selectionVersion.load()
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
            pending.storage[index].rowsComplete = transactionRowsComplete
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
            pending.storage[index].rows = []
        }
        changedIndexes.removeAll(keepingCapacity: true)
        transactionRowsComplete = recordsRows
    }

    private func tableIndex(spelledAs table: UnsafePointer<CChar>) -> Int {
        for (position, spelling) in spellings.enumerated()
        where spelling.name.withUnsafeBufferPointer({ strcmp($0.baseAddress!, table) == 0 }) {
            lastSpelling = position
            return spelling.index
        }
        let index = tableIndex(named: String(cString: table).sqliteFolded)
        spellings.append((Array(UnsafeBufferPointer(start: table, count: strlen(table) + 1)), index))
        lastSpelling = spellings.count - 1
        return index
    }

    private func tableIndex(named name: String) -> Int {
        if let index = pending.storage.firstIndex(where: { $0.name == name }) { return index }
        pending.storage.append(DatabaseChanges.Table(name: name, rowids: [], isChanged: false))
        interest.append((0, false))
        rowInterest.append((0, .none))
        return pending.storage.count - 1
    }
}
