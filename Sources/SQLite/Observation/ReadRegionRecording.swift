import CSQLite

extension Database {
    /// Runs `body`, and returns its result with what the statements it ran read: the union of
    /// their read regions. For code that reads through any number of statements, such as a
    /// `FetchKeyRequest`, whose region is not known in advance.
    ///
    /// ```swift
    /// let (items, region) = try db.recordingReadRegion { db in
    ///     try Table("items").filter(Column("done") == false).fetchAll(db)
    /// }
    /// region   // items(done, …)
    /// ```
    ///
    /// While `body` runs, the connection's statement trace (`sqlite3_trace_v2`) is in use.
    /// Recordings may nest.
    public func recordingReadRegion<T>(_ body: (Database) throws -> T) throws -> (T, DatabaseRegion) {
        let recording = StatementRecording()
        if tracker.statementRecordings.isEmpty {
            sqlite3_trace_v2(
                handle, UInt32(SQLITE_TRACE_STMT),
                { _, context, statement, _ in
                    guard let context, let statement else { return 0 }
                    Unmanaged<ChangeTracker>.fromOpaque(context).takeUnretainedValue()
                        .statementStarted(OpaquePointer(statement))
                    return 0
                }, Unmanaged.passUnretained(tracker).toOpaque())
        }
        tracker.statementRecordings.append(recording)
        defer {
            tracker.statementRecordings.removeLast()
            if tracker.statementRecordings.isEmpty { sqlite3_trace_v2(handle, 0, nil, nil) }
        }
        let value = try body(self)
        var region = DatabaseRegion()
        // The statements may be gone; their SQL finds them, or prepares them again, in the cache.
        for sql in recording.sql { region = region.union(try cachedStatement(sql).readRegion) }
        return (value, region)
    }
}

/// The SQL of the statements a connection started while a read region was being recorded.
final class StatementRecording {
    var sql: Set<String> = []
}

extension ChangeTracker {
    /// Called by the statement trace when a statement starts (inside `sqlite3_step`, so it only
    /// reads the statement's text).
    func statementStarted(_ statement: OpaquePointer) {
        guard let text = sqlite3_sql(statement) else { return }
        let sql = String(cString: text)
        for recording in statementRecordings { recording.sql.insert(sql) }
    }
}
