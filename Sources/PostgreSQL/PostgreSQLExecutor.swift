import QueryBuilder
import SQLCore
import SQLRecords

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
///
/// Only the two types of this module conform: a database runs each statement on a connection
/// borrowed from its pool, a transaction on its own, through the methods written once below.
public protocol PostgreSQLExecutor: Sendable {
    /// Runs `body` on the connection the statements run on: the transaction's, or one the
    /// database lends for the statement `sql`. Not part of the module's interface: clients run
    /// statements through the methods below.
    @_spi(Session) func withSession<T: Sendable>(sql: String?, _ body: (Session) async throws -> T) async throws -> T
}

extension PostgreSQLExecutor {
    /// Every row of `sql`, with `arguments` bound to `$1, $2…`, owned, its values mapped onto
    /// SQLite's (<doc:PostgreSQL#Values>).
    public func fetchAll(_ sql: String, _ arguments: [DatabaseValue] = []) async throws -> [Row] {
        try await withSession(sql: sql) { try await $0.run(sql, arguments).rows }
    }

    /// The first row of `sql`, or nil when there is none.
    public func fetchOne(_ sql: String, _ arguments: [DatabaseValue] = []) async throws -> Row? {
        try await fetchAll(sql, arguments).first
    }

    /// Runs one statement and returns the number of rows it inserted, updated or deleted.
    ///
    /// On a ``PostgreSQLDatabase``, a statement that begins a transaction (`BEGIN`, `START
    /// TRANSACTION`) throws ``PostgreSQLError``, and the transaction is rolled back: each
    /// statement runs on a connection lent for it alone. Use ``PostgreSQLDatabase/transaction(_:)``.
    @discardableResult
    public func execute(_ sql: String, _ arguments: [DatabaseValue] = []) async throws -> Int {
        try await withSession(sql: sql) { try await $0.run(sql, arguments).count }
    }
}

extension PostgreSQLDatabase: PostgreSQLExecutor {}
extension PostgreSQLTransaction: PostgreSQLExecutor {}
