import QueryEviction

// The keys a `SharedReader` reads: SQL text with bound arguments, or a `FetchKeyRequest`.
// Each fetch reports what it read: a SQL key the region its statement recorded when prepared,
// a request the union of the regions of the statements it ran.

extension SharedReaderKey {
    /// Every row of `sql`, each decoded as `T`: a record, or a single value from the first column.
    ///
    /// ```swift
    /// @SharedReader(.fetchAll("SELECT * FROM items WHERE done = ?", arguments: [false], database: db))
    /// var items: [Item]
    /// @SharedReader(.fetchAll("SELECT title FROM items", database: db)) var titles: [String]
    /// ```
    public static func fetchAll<T: FetchableRow & Sendable>(
        _ sql: String, arguments: [DatabaseValue] = [], database: (any DatabaseWriter)? = nil
    ) -> Self where Value == [T] {
        sqlKey("fetchAll", T.self, sql, arguments, database) { try $0.fetchAll(T.self, sql, arguments) }
    }

    /// The first row of `sql` decoded as `T`, or `nil` when there is none (or, for a single
    /// value, when it is NULL).
    ///
    /// ```swift
    /// @SharedReader(.fetchOne("SELECT * FROM items WHERE id = ?", arguments: [1], database: db))
    /// var item: Item?
    /// ```
    public static func fetchOne<T: FetchableRow & Sendable>(
        _ sql: String, arguments: [DatabaseValue] = [], database: (any DatabaseWriter)? = nil
    ) -> Self where Value == T? {
        sqlKey("fetchOne", T.self, sql, arguments, database) { try $0.fetchOne(T.self, sql, arguments) }
    }

    /// The first column of the first row of `sql`, for queries that always return a row, such
    /// as aggregates. No row is an error (`LiveQueryError.noRow(sql:)`).
    ///
    /// ```swift
    /// @SharedReader(wrappedValue: 0, .fetchOne("SELECT count(*) FROM items", database: db))
    /// var count: Int
    /// ```
    // Disfavored so that an optional value type picks the `T?` overload, which allows no row.
    @_disfavoredOverload
    public static func fetchOne(
        _ sql: String, arguments: [DatabaseValue] = [], database: (any DatabaseWriter)? = nil
    ) -> Self where Value: DatabaseValueConvertible {
        sqlKey("fetchOne!", Value.self, sql, arguments, database) { db in
            guard let value = try db.fetchOne(Value.self, sql, arguments) else {
                throw LiveQueryError.noRow(sql: sql)
            }
            return value
        }
    }

    /// The value of a `FetchKeyRequest` that runs SQLite SQL: any query, built with the query
    /// builder or by hand.
    ///
    /// ```swift
    /// try await $items.load(.fetch(Items(filterDate: date, order: .reverse), database: db))
    /// ```
    ///
    /// The tables its statements read are recorded while it runs, so only commits to those
    /// tables refetch it; and for query-builder requests, only commits that change a column
    /// they read in a row their filter may match (see `SharedReaderCache.observesRows`).
    public static func fetch<Request: FetchKeyRequest>(
        _ request: Request, database: (any DatabaseWriter)? = nil
    ) -> Self where Value == Request.Value, Request.Connection == Database {
        requestKey(request, database) { try request.fetch($0) }
    }

    /// The value of a `FetchKeyRequest` that runs on any source (its `fetch` takes
    /// `any SQLConnection`), read from SQLite.
    public static func fetch<Request: FetchKeyRequest>(
        _ request: Request, database: (any DatabaseWriter)? = nil
    ) -> Self where Value == Request.Value, Request.Connection == any SQLConnection {
        requestKey(request, database) { try request.fetch($0) }
    }

    private static func requestKey<Request: FetchKeyRequest>(
        _ request: Request, _ database: (any DatabaseWriter)?,
        _ fetch: @escaping @Sendable (Database) throws -> Value
    ) -> Self {
        let id = QueryPath(elements: [QueryPath.Element(FetchKeyIdentity(request: request))])
        return sqliteKey(id, database) { db in
            let (value, region) = try db.recordingReadRegion(scopingRows: SharedReaderCache.observesRows) { db in
                try fetch(db)
            }
            return (value, region)
        }
    }

    /// A key whose query runs `fetch` on `database`, or on the default database when it is nil.
    private static func sqliteKey(
        _ id: QueryPath, _ database: (any DatabaseWriter)?,
        _ fetch: @escaping @Sendable (Database) throws -> (Value, DatabaseRegion)
    ) -> Self {
        SharedReaderKey(id: id, database: database) {
            guard let writer = database ?? DefaultDatabase.current else { throw SharingSQLiteError.noDatabase }
            let (record, lease) = SQLiteLiveEngine.of(writer).attach(id, fetch: fetch)
            return LiveAttachment(record: record, lease: lease)
        }
    }

    private static func sqlKey(
        _ kind: String, _ type: Any.Type, _ sql: String, _ arguments: [DatabaseValue],
        _ database: (any DatabaseWriter)?, _ fetch: @escaping @Sendable (Database) throws -> Value
    ) -> Self {
        let identity = SQLKeyIdentity(kind: kind, type: type, sql: sql, arguments: arguments)
        return sqliteKey(QueryPath(elements: [QueryPath.Element(identity)]), database) { db in
            if SharedReaderCache.observesRows {
                // Scoped to the columns read, so that updates of other columns refetch nothing.
                let (value, region) = try db.recordingReadRegion(scopingRows: true) { try fetch($0) }
                return (value, region)
            }
            let value = try fetch(db)
            // The statement is in the connection's cache after the fetch, so this costs a lookup.
            return (value, try db.cachedStatement(sql).readRegion)
        }
    }
}
