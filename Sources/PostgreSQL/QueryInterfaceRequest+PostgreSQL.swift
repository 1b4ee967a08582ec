import QueryBuilder
import SQLCore
import SQLRecords

// The query builder's requests on PostgreSQL: the same request values as on SQLite, rendered in
// PostgreSQL's dialect, with the same results (see `SQLDialect.postgreSQL` for what differs in
// the SQL, and the "Moving to PostgreSQL" section of the README for what differs in the data).

extension QueryInterfaceRequest {
    /// The request's SQL in PostgreSQL's dialect, or an error naming what PostgreSQL cannot run.
    fileprivate func postgreSQL(one: Bool = false, count: Bool = false) throws -> (String, [DatabaseValue]) {
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
    /// Every row, each decoded as `RowValue`, on PostgreSQL.
    public func fetchAll(_ db: some PostgreSQLExecutor) async throws -> [RowValue] {
        try await rows(db, one: false) { try RowValue(row: $0) }
    }

    /// The first row (see `FetchableRow.init(firstRow:)`), or nil, on PostgreSQL.
    public func fetchOne(_ db: some PostgreSQLExecutor) async throws -> RowValue? {
        try await rows(db, one: true) { try RowValue(firstRow: $0) }.first ?? nil
    }
}

extension Table {
    /// How many rows the table has, on PostgreSQL.
    public func fetchCount(_ db: some PostgreSQLExecutor) async throws -> Int {
        try await all().fetchCount(db)
    }
}
