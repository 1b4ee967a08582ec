import SQLite

// The query builder's requests on PostgreSQL: the same request values as on SQLite, rendered in
// PostgreSQL's dialect, with the same results (see `SQLDialect.postgreSQL` for what differs in
// the SQL, and the "Moving to PostgreSQL" section of the README for what differs in the data).

extension QueryInterfaceRequest {
    /// The request's SQL in PostgreSQL's dialect, or an error naming what PostgreSQL cannot run.
    fileprivate func postgreSQL(one: Bool = false, count: Bool = false) throws -> (String, [SQLiteValue]) {
        let rendered = rendered(.postgreSQL, one: one, count: count)
        if let unsupported = rendered.unsupported {
            throw PostgreSQLError(
                kind: .other, message: "PostgreSQL has no \(unsupported); this request runs on SQLite only",
                sql: rendered.sql)
        }
        return (rendered.sql, rendered.arguments)
    }

    /// How many rows the request matches, on PostgreSQL.
    public func fetchCount(_ db: some PostgreSQLExecutor) async throws -> Int {
        let (sql, arguments) = try postgreSQL(count: true)
        guard let row = try await db.fetchAll(sql, arguments).first else { return 0 }
        return try row[0]
    }

    /// The rows (`one`: at most the first), each decoded by `T`'s `init(row:)` through one cursor.
    fileprivate func records<T: FetchableRow>(_ db: some PostgreSQLExecutor, one: Bool) async throws -> [T] {
        let (sql, arguments) = try postgreSQL(one: one)
        let cursor = OwnedRowCursor()
        return try await db.fetchAll(sql, arguments).map { try T(row: cursor.borrow($0)) }
    }

    /// The rows (`one`: at most the first), each decoded through `Decodable`, by column name.
    fileprivate func decoded<T: Decodable>(_ db: some PostgreSQLExecutor, one: Bool) async throws -> [T] {
        let (sql, arguments) = try postgreSQL(one: one)
        let cursor = OwnedRowCursor()
        return try await db.fetchAll(sql, arguments).map {
            try NamedColumnDecoder.decode(T.self, from: cursor.borrow($0))
        }
    }

    /// The first column of the rows (`one`: at most the first).
    fileprivate func values<T: SQLiteValueConvertible>(_ db: some PostgreSQLExecutor, one: Bool) async throws -> [T] {
        let (sql, arguments) = try postgreSQL(one: one)
        return try await db.fetchAll(sql, arguments).map { try $0[0] }
    }
}

extension QueryInterfaceRequest where RowValue: FetchableRow {
    /// Every row, decoded by the type's `init(row:)`, on PostgreSQL.
    public func fetchAll(_ db: some PostgreSQLExecutor) async throws -> [RowValue] {
        try await records(db, one: false)
    }

    /// The first row, or nil, on PostgreSQL.
    public func fetchOne(_ db: some PostgreSQLExecutor) async throws -> RowValue? {
        (try await records(db, one: true) as [RowValue]).first
    }
}

extension QueryInterfaceRequest where RowValue: Decodable {
    /// Every row, decoded through `Decodable` (coding keys name the columns), on PostgreSQL.
    public func fetchAll(_ db: some PostgreSQLExecutor) async throws -> [RowValue] {
        try await decoded(db, one: false)
    }

    /// The first row, decoded through `Decodable`, or nil, on PostgreSQL.
    public func fetchOne(_ db: some PostgreSQLExecutor) async throws -> RowValue? {
        (try await decoded(db, one: true) as [RowValue]).first
    }
}

extension QueryInterfaceRequest where RowValue: SQLiteValueConvertible {
    /// The first column of every row, on PostgreSQL.
    public func fetchAll(_ db: some PostgreSQLExecutor) async throws -> [RowValue] {
        try await values(db, one: false)
    }

    /// The first column of the first row, or nil, on PostgreSQL.
    public func fetchOne(_ db: some PostgreSQLExecutor) async throws -> RowValue? {
        (try await values(db, one: true) as [RowValue]).first
    }
}

// Types that are both decode the way SQLite's fetches decode them: a record by its
// `init(row:)`, a value from the first column.

extension QueryInterfaceRequest where RowValue: FetchableRow & Decodable {
    /// Every row, decoded by the type's `init(row:)`, on PostgreSQL.
    public func fetchAll(_ db: some PostgreSQLExecutor) async throws -> [RowValue] {
        try await records(db, one: false)
    }

    /// The first row, or nil, on PostgreSQL.
    public func fetchOne(_ db: some PostgreSQLExecutor) async throws -> RowValue? {
        (try await records(db, one: true) as [RowValue]).first
    }
}

extension QueryInterfaceRequest where RowValue: SQLiteValueConvertible & Decodable {
    /// The first column of every row, on PostgreSQL.
    public func fetchAll(_ db: some PostgreSQLExecutor) async throws -> [RowValue] {
        try await values(db, one: false)
    }

    /// The first column of the first row, or nil, on PostgreSQL.
    public func fetchOne(_ db: some PostgreSQLExecutor) async throws -> RowValue? {
        (try await values(db, one: true) as [RowValue]).first
    }
}

extension Table {
    /// How many rows the table has, on PostgreSQL.
    public func fetchCount(_ db: some PostgreSQLExecutor) async throws -> Int {
        try await all().fetchCount(db)
    }
}
