#if HTTP
    import SQLite
    import Locking

    /// The table views already checked against the schema, by table and parameters, so that a
    /// view asked for again skips the work of making it: parsing its options, and the schema's
    /// columns, indexes and foreign keys (most of a request's time when the count is skipped).
    /// An entry holds for the `PRAGMA schema_version` it was made at: a schema change, by any
    /// process, makes the view again.
    final class TableViewCache: Sendable {
        private struct Key: Hashable {
            var table: String
            var parameters: ViewParameters
        }

        private struct Entry {
            var schemaVersion: Int
            var view: TableViewRequest
        }

        /// Beyond this many views, the cache starts again empty: it bounds memory, and the views
        /// that many clients ask for are back after one request each.
        static let capacity = 256

        private let entries = Lock<[Key: Entry]>([:])

        /// The view of `table` that `parameters` describe, as ``TableViewRequest`` makes it, read
        /// in `db`'s transaction.
        func view(table: String, parameters: ViewParameters, db: Database, timeLimit: Duration) throws
            -> TableViewRequest
        {
            let schemaVersion = try db.fetchOne(Int.self, "PRAGMA schema_version") ?? 0
            let key = Key(table: table, parameters: parameters)
            if let entry = entries.withLock({ $0[key] }), entry.schemaVersion == schemaVersion {
                return entry.view
            }
            let view = try TableViewRequest(table: table, parameters: parameters, db: db, timeLimit: timeLimit)
            entries.withLock { entries in
                if entries.count >= Self.capacity { entries.removeAll(keepingCapacity: true) }
                entries[key] = Entry(schemaVersion: schemaVersion, view: view)
            }
            return view
        }
    }
#endif
