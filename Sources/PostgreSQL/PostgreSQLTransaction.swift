import SQLite

/// The statements of one ``PostgreSQLDatabase/transaction(_:)``, all on its connection, between
/// its `BEGIN` and its `COMMIT` or `ROLLBACK`. Use it only inside the closure it is handed to.
public struct PostgreSQLTransaction: Sendable {
    let session: Session

    /// Every row of `sql`, owned.
    public func fetchAll(_ sql: String, _ arguments: [SQLiteValue] = []) async throws -> [Row] {
        try await session.run(sql, arguments).rows
    }

    /// Runs one statement and returns the number of rows it inserted, updated or deleted.
    @discardableResult
    public func execute(_ sql: String, _ arguments: [SQLiteValue] = []) async throws -> Int {
        try await session.run(sql, arguments).count
    }
}
