import SQLite

// The query builder's requests on PostgreSQL: the same request values as on SQLite, rendered in
// PostgreSQL's dialect, with the same results (see `SQLDialect.postgreSQL` for what differs in
// the SQL, and the "Moving to PostgreSQL" section of the README for what differs in the data).

extension QueryInterfaceRequest {
    /// The request's SQL in PostgreSQL's dialect, or an error naming what PostgreSQL cannot run.
    fileprivate func postgreSQL(one: Bool = false, count: Bool = false) throws -> (String, [SQLiteValue]) {
        let rendered = try rendered(.postgreSQL, one: one, count: count)
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

    /// The rows (`one`: at most the first), each handed to `decode` through one cursor.
    fileprivate func rows<T>(
        _ db: some PostgreSQLExecutor, one: Bool, _ decode: (BorrowedRow) throws -> T
    ) async throws -> [T] {
        let (sql, arguments) = try postgreSQL(one: one)
        let cursor = OwnedRowCursor()
        return try await db.fetchAll(sql, arguments).map { try decode(cursor.borrow($0)) }
    }
}

extension QueryInterfaceRequest where RowValue: FetchableRow {
    /// Every row, decoded by the type's `init(row:)`, on PostgreSQL.
    public func fetchAll(_ db: some PostgreSQLExecutor) async throws -> [RowValue] {
        try await rows(db, one: false) { try RowValue(row: $0) }
    }

    /// The first row, or nil, on PostgreSQL.
    public func fetchOne(_ db: some PostgreSQLExecutor) async throws -> RowValue? {
        try await rows(db, one: true) { try RowValue(row: $0) }.first
    }
}

extension QueryInterfaceRequest where RowValue: Decodable {
    /// Every row, decoded through `Decodable` (coding keys name the columns), on PostgreSQL.
    public func fetchAll(_ db: some PostgreSQLExecutor) async throws -> [RowValue] {
        try await rows(db, one: false) { try NamedColumnDecoder.decode(RowValue.self, from: $0) }
    }

    /// The first row, decoded through `Decodable`, or nil, on PostgreSQL.
    public func fetchOne(_ db: some PostgreSQLExecutor) async throws -> RowValue? {
        try await rows(db, one: true) { try NamedColumnDecoder.decode(RowValue.self, from: $0) }.first
    }
}

extension QueryInterfaceRequest where RowValue: SQLiteValueConvertible {
    /// The first column of every row, on PostgreSQL.
    public func fetchAll(_ db: some PostgreSQLExecutor) async throws -> [RowValue] {
        try await rows(db, one: false) { try $0[0] as RowValue }
    }

    /// The first column of the first row, or nil, on PostgreSQL.
    public func fetchOne(_ db: some PostgreSQLExecutor) async throws -> RowValue? {
        try await rows(db, one: true) { try $0[0] as RowValue }.first
    }
}

// Types that are both decode the way SQLite's fetches decode them: a record by its
// `init(row:)`, a value from the first column.

extension QueryInterfaceRequest where RowValue: FetchableRow & Decodable {
    /// Every row, decoded by the type's `init(row:)`, on PostgreSQL.
    public func fetchAll(_ db: some PostgreSQLExecutor) async throws -> [RowValue] {
        try await rows(db, one: false) { try RowValue(row: $0) }
    }

    /// The first row, or nil, on PostgreSQL.
    public func fetchOne(_ db: some PostgreSQLExecutor) async throws -> RowValue? {
        try await rows(db, one: true) { try RowValue(row: $0) }.first
    }
}

extension QueryInterfaceRequest where RowValue: SQLiteValueConvertible & Decodable {
    /// The first column of every row, on PostgreSQL.
    public func fetchAll(_ db: some PostgreSQLExecutor) async throws -> [RowValue] {
        try await rows(db, one: false) { try $0[0] as RowValue }
    }

    /// The first column of the first row, or nil, on PostgreSQL.
    public func fetchOne(_ db: some PostgreSQLExecutor) async throws -> RowValue? {
        try await rows(db, one: true) { try $0[0] as RowValue }.first
    }
}

extension Table {
    /// How many rows the table has, on PostgreSQL.
    public func fetchCount(_ db: some PostgreSQLExecutor) async throws -> Int {
        try await all().fetchCount(db)
    }
}
