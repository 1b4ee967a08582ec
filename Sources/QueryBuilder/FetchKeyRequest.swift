/// A hashable description of a fetch: what a live value loads, and the key it is cached under.
///
/// ```swift
/// struct Items: FetchKeyRequest {
///     var filterDate: Date?
///     var order: SortOrder = .reverse
///     func fetch(_ db: any SQLConnection) throws -> [Item] {
///         try Item.all()
///             .filter(Column("timestamp") > filterDate ?? .distantPast)
///             .sort(order == .forward ? Column("timestamp") : Column("timestamp").desc)
///             .limit(10)
///             .fetchAll(db)
///     }
/// }
/// ```
///
/// Two equal requests fetch the same thing, so they can share one cached value; build them from
/// plain values (and query-builder requests and expressions, which are `Hashable` too).
///
/// Requests, expressions, columns and tables compare text and names by their UTF-8 bytes, as
/// SQLite does. A `String` property compares by canonical equivalence instead (`"\u{E9}"` equals
/// `"e\u{301}"`, which SQLite tells apart), so keep text that filters rows in a request or an
/// expression rather than in a `String` property.
///
/// What `fetch` takes says where the request runs. A request that takes `any SQLConnection`
/// runs query-builder requests only, and runs unchanged on SQLite and on PostgreSQL. One that
/// takes SQLite's `Database` may run any SQLite SQL, and is SQLite-only: the compiler refuses it
/// a PostgreSQL database.
public protocol FetchKeyRequest<Value>: Hashable, Sendable {
    /// What the request produces.
    associatedtype Value: Sendable
    /// What the request runs on: `any SQLConnection` for every source, `Database` for SQLite only.
    associatedtype Connection
    /// Runs the request on a connection.
    func fetch(_ db: Connection) throws -> Value
}
