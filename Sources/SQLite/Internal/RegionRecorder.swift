import CSQLite

#if canImport(Glibc)
    import Glibc
#endif

/// What a statement does to the transaction it runs in, as SQLite's authorizer reports it.
@usableFromInline
enum TransactionControl: Equatable {
    case begin, commit, rollback
    /// A savepoint statement, with the savepoint's name (ASCII-lowercased, as SQLite compares them).
    case savepoint(String)
    case release(String)
    case rollbackTo(String)

    /// True for the statements that begin, commit or roll back a whole transaction.
    var isTransactionStatement: Bool {
        switch self {
        case .begin, .commit, .rollback: return true
        case .savepoint, .release, .rollbackTo: return false
        }
    }
}

/// A connection's authorizer, installed once when the connection opens.
///
/// While the connection prepares a statement, it records the tables and columns the statement
/// reads, the tables it writes or whose schema it changes, and what it does to transactions.
///
/// Once changes are tracked, it also answers every `DELETE` with `SQLITE_IGNORE`, which turns off
/// SQLite's truncate optimization (a `DELETE` without `WHERE` that skips the update hook). That
/// must hold for the statements SQLite prepares again by itself after the schema changed, which is
/// why the authorizer stays installed rather than being set around each prepare (setting one also
/// expires every prepared statement of the connection).
final class RegionRecorder {
    /// What one statement does, recorded while it was prepared.
    struct Recording {
        var readRegion = DatabaseRegion()
        /// ASCII-lowercased, as SQLite matches names.
        var writtenTables: Set<String> = []
        var control: TransactionControl?
        /// The statement changes a schema: its changes are not reported row by row.
        var changesSchema = false
    }

    /// Set while a statement is prepared by the connection; nil while SQLite prepares one again.
    private var recording: Recording?
    /// Set when changes are tracked.
    var disablesTruncateOptimization = false
    /// The table or view a `DROP` statement drops. SQLite asks right away whether it may delete
    /// it, and an `SQLITE_IGNORE` there would make the whole statement do nothing.
    private var dropped: String?

    func install(on connection: OpaquePointer) {
        sqlite3_set_authorizer(
            connection,
            { context, action, first, second, _, source in
                guard let context else { return SQLITE_OK }
                return Unmanaged<RegionRecorder>.fromOpaque(context).takeUnretainedValue().authorize(
                    action: action, first: first, second: second, source: source)
            }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Runs `prepare`, and returns its result with what the prepared statement does.
    func record<T>(_ prepare: () throws -> T) rethrows -> (T, Recording) {
        recording = Recording()
        dropped = nil
        defer { recording = nil }
        let result = try prepare()
        return (result, recording!)
    }

    private func authorize(
        action: Int32, first: UnsafePointer<CChar>?, second: UnsafePointer<CChar>?, source: UnsafePointer<CChar>?
    ) -> Int32 {
        // Only the question that follows a DROP's own is part of that DROP.
        let dropped = self.dropped
        self.dropped = nil
        if action == SQLITE_DELETE {
            guard let first else { return SQLITE_OK }
            let table = String(cString: first).sqliteFolded
            recording?.writtenTables.insert(table)
            // SQLite's own tables (sqlite_master, sqlite_sequence…) may not be ignored.
            if disablesTruncateOptimization && !table.hasPrefix("sqlite_") && table != dropped { return SQLITE_IGNORE }
            return SQLITE_OK
        }
        if isDrop(action), let first { self.dropped = String(cString: first).sqliteFolded }
        guard recording != nil else { return SQLITE_OK }
        switch action {
        case SQLITE_READ:
            if let first {
                recording!.readRegion.insert(table: String(cString: first), column: second.map { String(cString: $0) })
            }
            // A read through a view names the view (or the trigger): dropping or replacing the view
            // changes what is read.
            if let source { recording!.readRegion.insert(table: String(cString: source), column: nil) }
        case SQLITE_INSERT, SQLITE_UPDATE:
            if let first { recording!.writtenTables.insert(String(cString: first).sqliteFolded) }
        case SQLITE_CREATE_TABLE, SQLITE_CREATE_TEMP_TABLE, SQLITE_CREATE_VIEW, SQLITE_CREATE_TEMP_VIEW,
            SQLITE_CREATE_VTABLE, SQLITE_DROP_TABLE, SQLITE_DROP_TEMP_TABLE, SQLITE_DROP_VIEW, SQLITE_DROP_TEMP_VIEW,
            SQLITE_DROP_VTABLE:
            recording!.changesSchema = true
            if let first { recording!.writtenTables.insert(String(cString: first).sqliteFolded) }
        case SQLITE_ALTER_TABLE, SQLITE_CREATE_INDEX, SQLITE_CREATE_TEMP_INDEX, SQLITE_DROP_INDEX,
            SQLITE_DROP_TEMP_INDEX, SQLITE_CREATE_TRIGGER, SQLITE_CREATE_TEMP_TRIGGER, SQLITE_DROP_TRIGGER,
            SQLITE_DROP_TEMP_TRIGGER:
            // The table whose schema changes comes second.
            recording!.changesSchema = true
            if let second { recording!.writtenTables.insert(String(cString: second).sqliteFolded) }
        case SQLITE_TRANSACTION:
            switch first.map({ String(cString: $0) }) {
            case "BEGIN": recording!.control = .begin
            case "COMMIT": recording!.control = .commit
            case "ROLLBACK": recording!.control = .rollback
            default: break
            }
        case SQLITE_SAVEPOINT:
            guard let first, let second else { break }
            let name = String(cString: second).sqliteFolded
            switch String(cString: first) {
            case "BEGIN": recording!.control = .savepoint(name)
            case "RELEASE": recording!.control = .release(name)
            case "ROLLBACK": recording!.control = .rollbackTo(name)
            default: break
            }
        default:
            break
        }
        return SQLITE_OK
    }

    private func isDrop(_ action: Int32) -> Bool {
        action == SQLITE_DROP_TABLE || action == SQLITE_DROP_TEMP_TABLE || action == SQLITE_DROP_VIEW
            || action == SQLITE_DROP_TEMP_VIEW || action == SQLITE_DROP_VTABLE
    }
}
