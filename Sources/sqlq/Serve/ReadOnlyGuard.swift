#if HTTP
    import CSQLite
    import SQLite

    /// What keeps `serve` from writing: a file is opened read-only (SQLITE_OPEN_READONLY), and
    /// every connection, the demo database's in-memory one too, has `PRAGMA query_only` on, so
    /// that SQLite itself refuses any statement that would change the database.
    enum ReadOnlyGuard {
        static func enforce(on connection: DatabaseQueue) async throws {
            // A setting of the connection, not a change of the database: outside any transaction.
            try connection.writeWithoutTransaction { db in try db.execute("PRAGMA query_only = ON") }
        }

        /// How the connection refuses writes, as the database page shows it: both answers come
        /// from SQLite, not from what `serve` meant to set.
        static func state(_ db: Database) throws -> (openedReadOnly: Bool, queryOnly: Bool) {
            let queryOnly = try db.fetchOne(Int.self, "PRAGMA query_only") == 1
            let handle = try connectionHandle(db)
            return (sqlite3_db_readonly(handle, "main") == 1, queryOnly)
        }
    }
#endif
