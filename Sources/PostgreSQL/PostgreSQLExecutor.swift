import SQLite

/// Runs SQL on PostgreSQL: a ``PostgreSQLDatabase``, or a ``PostgreSQLTransaction`` inside one.
///
/// Query-builder requests and record writes run on either:
///
/// ```swift
/// let open = try await Table("items").filter(Column("done") == false).asRequest(of: Item.self).fetchAll(db)
/// try await db.transaction { tx in
///     var item = Item(title: "milk")
///     try await item.insert(tx)
/// }
/// ```
public protocol PostgreSQLExecutor: Sendable {
    /// Every row of `sql`, with `arguments` bound to `$1, $2…`.
    func fetchAll(_ sql: String, _ arguments: [SQLiteValue]) async throws -> [Row]
    /// Runs `sql`, and returns how many rows it changed.
    func execute(_ sql: String, _ arguments: [SQLiteValue]) async throws -> Int
}

extension PostgreSQLExecutor {
    /// The first row of `sql`, or nil when there is none.
    public func fetchOne(_ sql: String, _ arguments: [SQLiteValue] = []) async throws -> Row? {
        try await fetchAll(sql, arguments).first
    }
}

extension PostgreSQLDatabase: PostgreSQLExecutor {}
extension PostgreSQLTransaction: PostgreSQLExecutor {}
