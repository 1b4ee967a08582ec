import Dispatch
import LiveQuery
import QueryBuilder
import QueryEviction
import SQLCore
import SQLRecords

// Live values read from PostgreSQL: the same `SharedReader`s as on SQLite, kept current by the
// notifications of `installChangeNotifications(on:schema:)`'s triggers, whichever instance of the
// service commits.

extension SharedReaderKey {
    /// The value of a `FetchKeyRequest` that runs on any source (its `fetch` takes
    /// `any SQLConnection`), read from PostgreSQL.
    ///
    /// ```swift
    /// @SharedReader(.fetch(OpenItems(), database: postgres)) var items: [Item]
    /// ```
    ///
    /// It refetches when a transaction changes a table its query-builder requests read (the
    /// table each names, or the tables of the view it names, as the `search_path` resolves it
    /// until the schema changes), and after a schema change. A
    /// request whose `fetch` takes SQLite's `Database` does not compile here: it may run SQL
    /// that PostgreSQL does not.
    public static func fetch<Request: FetchKeyRequest>(
        _ request: Request, database: PostgreSQLDatabase
    ) -> Self where Value == Request.Value, Request.Connection == any SQLConnection {
        let id = QueryPath(elements: [QueryPath.Element(FetchKeyIdentity(request: request))])
        return postgreSQLKey(id, database) { connection in
            try connection.recordingTables { try request.fetch(connection) }
        }
    }

    /// Every row of `sql` (with `$1, $2…` arguments), each decoded as `T`, from PostgreSQL: a
    /// record, or a single value from the first column.
    ///
    /// ```swift
    /// @SharedReader(.fetchAll("SELECT * FROM items WHERE done = $1", arguments: [false], database: postgres))
    /// var items: [Item]
    /// ```
    ///
    /// The tables it reads (by schema and name) are taken from PostgreSQL's plan for it with its
    /// arguments, once, and again after a schema change; a plan that calls a function (which may
    /// read anything) makes every change refetch it.
    public static func fetchAll<T: FetchableRow & Sendable>(
        _ sql: String, arguments: [DatabaseValue] = [], database: PostgreSQLDatabase
    ) -> Self where Value == [T] {
        sqlKey("fetchAll", T.self, sql, arguments, database) { rows in
            let cursor = OwnedRowCursor()
            return try rows.map { try T(row: cursor.borrow($0)) }
        }
    }

    /// The first row of `sql` decoded as `T`, or `nil` when there is none (or, for a single
    /// value, when it is NULL), from PostgreSQL.
    public static func fetchOne<T: FetchableRow & Sendable>(
        _ sql: String, arguments: [DatabaseValue] = [], database: PostgreSQLDatabase
    ) -> Self where Value == T? {
        sqlKey("fetchOne", T.self, sql, arguments, database) { rows in
            try rows.first.flatMap { try T(firstRow: BorrowedRow($0)) }
        }
    }

    /// The first column of the first row of `sql`, for queries that always return a row, such
    /// as aggregates, from PostgreSQL. No row, or NULL, is an error.
    ///
    /// ```swift
    /// @SharedReader(wrappedValue: 0, .fetchOne("SELECT count(*) FROM items", database: postgres))
    /// var count: Int
    /// ```
    // Disfavored so that an optional value type picks the `T?` overload, which allows no row.
    @_disfavoredOverload
    public static func fetchOne(
        _ sql: String, arguments: [DatabaseValue] = [], database: PostgreSQLDatabase
    ) -> Self where Value: DatabaseValueConvertible {
        sqlKey("fetchOne!", Value.self, sql, arguments, database) { rows in
            guard let row = rows.first else { throw LiveQueryError.noRow(sql: sql) }
            return try row[0]
        }
    }

    private static func sqlKey(
        _ kind: String, _ type: Any.Type, _ sql: String, _ arguments: [DatabaseValue],
        _ database: PostgreSQLDatabase, _ decode: @escaping @Sendable ([Row]) throws -> Value
    ) -> Self {
        let id = QueryPath(elements: [
            QueryPath.Element(SQLKeyIdentity(kind: kind, type: type, sql: sql, arguments: arguments))
        ])
        return postgreSQLKey(id, database) { connection in
            let value = try decode(try connection.session.runBlocking(sql, arguments))
            return (value, try connection.region(of: sql, arguments))
        }
    }

    /// A key whose query runs `fetch` on `database`'s live-query engine.
    private static func postgreSQLKey(
        _ id: QueryPath, _ database: PostgreSQLDatabase,
        _ fetch: @escaping @Sendable (PostgreSQLReadConnection) throws -> (Value, DatabaseRegion)
    ) -> Self {
        SharedReaderKey(id: id, database: database) {
            let (record, lease) = database.liveEngine.attach(id, fetch: fetch)
            return LiveAttachment(record: record, lease: lease)
        }
    }
}

extension PostgreSQLDatabase {
    /// The value of a `FetchKeyRequest` that runs on any source, fetched once.
    ///
    /// ```swift
    /// let items = try await postgres.fetch(OpenItems())
    /// ```
    public func fetch<Request: FetchKeyRequest>(_ request: Request) async throws -> Request.Value
    where Request.Connection == any SQLConnection {
        try await read { try request.fetch($0) }
    }

    /// Runs `body` on a connection borrowed from the pool, on a thread of its own: the
    /// connection's statements wait for the server there, never on the caller's.
    func read<T: Sendable>(_ body: @escaping @Sendable (PostgreSQLReadConnection) throws -> T) async throws -> T {
        try await withSession(sql: nil) { session in
            try await withCheckedThrowingContinuation { continuation in
                DispatchQueue.global().async {
                    continuation.resume(with: Result { try body(PostgreSQLReadConnection(session: session)) })
                }
            }
        }
    }
}
