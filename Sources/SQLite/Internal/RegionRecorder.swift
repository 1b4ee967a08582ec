import CSQLite

/// Listens to SQLite's authorizer while a statement is prepared, to learn which tables and
/// columns it reads and which tables it writes.
final class RegionRecorder {
    var readRegion = DatabaseRegion()
    var writtenTables: Set<String> = []
    /// When changes are tracked, `DELETE` must not use SQLite's truncate optimization, which
    /// deletes every row without calling the update hook.
    let disablesTruncateOptimization: Bool

    init(disablesTruncateOptimization: Bool) {
        self.disablesTruncateOptimization = disablesTruncateOptimization
    }

    /// Prepares with the authorizer installed, and removes it afterwards.
    func record<T>(on connection: OpaquePointer, _ prepare: () throws -> T) rethrows -> T {
        sqlite3_set_authorizer(
            connection,
            { context, action, first, second, _, _ in
                guard let context else { return SQLITE_OK }
                let recorder = Unmanaged<RegionRecorder>.fromOpaque(context).takeUnretainedValue()
                return recorder.authorize(action: action, first: first, second: second)
            }, Unmanaged.passUnretained(self).toOpaque())
        defer { sqlite3_set_authorizer(connection, nil, nil) }
        return try prepare()
    }

    private func authorize(action: Int32, first: UnsafePointer<CChar>?, second: UnsafePointer<CChar>?) -> Int32 {
        switch action {
        case SQLITE_READ:
            if let first {
                readRegion.insert(table: String(cString: first), column: second.map { String(cString: $0) })
            }
        case SQLITE_INSERT, SQLITE_UPDATE:
            if let first { writtenTables.insert(String(cString: first).lowercased()) }
        case SQLITE_DELETE:
            if let first {
                let table = String(cString: first).lowercased()
                writtenTables.insert(table)
                // SQLite's own tables (sqlite_sequence, sqlite_stat1…) may not be ignored.
                if disablesTruncateOptimization && !table.hasPrefix("sqlite_") { return SQLITE_IGNORE }
            }
        default:
            break
        }
        return SQLITE_OK
    }
}
