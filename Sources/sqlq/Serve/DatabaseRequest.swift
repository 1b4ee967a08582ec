#if HTTP
    import SQLite

    /// The database's tables and views with their row counts, and how the connection refuses
    /// writes.
    struct DatabaseRequest: FetchKeyRequest {
        var timeLimit: Duration

        func fetch(_ db: Database) throws -> DatabasePage {
            let (openedReadOnly, queryOnly) = try ReadOnlyGuard.state(db)
            let names = try db.fetchAll(
                "SELECT name, type FROM sqlite_master WHERE type IN ('table', 'view') "
                    + "AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name")
            var tables: [DatabasePage.Table] = []
            // One time limit for the whole page: a count that runs out of time shows as unknown.
            let counted: Void? = try? QueryTimeLimit.run(db, limit: timeLimit) { () throws -> Void in
                for row in names {
                    let name: String = try row[0]
                    let type: String = try row[1]
                    let count = try db.fetchOne(Int.self, "SELECT count(*) FROM \(String.quotedIdentifier(name))")
                    tables.append(DatabasePage.Table(name: name, type: type, count: count))
                }
            }
            if counted == nil {
                for row in names.dropFirst(tables.count) {
                    tables.append(DatabasePage.Table(name: try row[0], type: try row[1], count: nil))
                }
            }
            return DatabasePage(tables: tables, openedReadOnly: openedReadOnly, queryOnly: queryOnly)
        }
    }

    /// What `/-/database.json` returns and `/-/database.sse` streams.
    struct DatabasePage: Hashable, Sendable, Encodable {
        struct Table: Hashable, Sendable, Encodable {
            var name: String
            var type: String
            /// nil when counting took longer than the time limit.
            var count: Int?
        }

        var tables: [Table]
        /// SQLite's answer: the file is open without write access.
        var openedReadOnly: Bool
        /// SQLite's answer: `PRAGMA query_only` refuses every write.
        var queryOnly: Bool
    }
#endif
