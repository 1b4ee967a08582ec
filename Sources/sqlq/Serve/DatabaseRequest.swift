#if HTTP
    import CSQLite
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
                    do {
                        let count = try db.fetchOne(Int.self, "SELECT count(*) FROM \(String.quotedIdentifier(name))")
                        tables.append(DatabasePage.Table(name: name, type: type, count: count))
                    } catch let error as SQLiteError
                        where error.code != SQLITE_INTERRUPT && !DatabaseOptions.isDatabaseFailure(error)
                    {
                        // A view whose table was dropped cannot be read; the others still can.
                        tables.append(
                            DatabasePage.Table(
                                name: name, type: type, count: nil, error: "cannot count: \(error.message)"))
                    }
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
            /// nil when counting took longer than the time limit, or failed.
            var count: Int?
            /// Why a table or view has no count (a view whose table was dropped); nil otherwise.
            var error: String?

            private enum CodingKeys: String, CodingKey { case name, type, count, error }

            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(name, forKey: .name)
                try container.encode(type, forKey: .type)
                // Always present: null says the count is unknown.
                try container.encode(count, forKey: .count)
                try container.encodeIfPresent(error, forKey: .error)
            }
        }

        var tables: [Table]
        /// SQLite's answer: the file is open without write access.
        var openedReadOnly: Bool
        /// SQLite's answer: `PRAGMA query_only` refuses every write.
        var queryOnly: Bool
    }
#endif
