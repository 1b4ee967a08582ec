/// A hashable description of a fetch: what a live value loads, and the key it is cached under.
///
/// ```swift
/// struct Items: FetchKeyRequest {
///     var filterDate: Date?
///     var order: SortOrder = .reverse
///     func fetch(_ db: Database) throws -> [Item] {
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
public protocol FetchKeyRequest<Value>: Hashable, Sendable {
    /// What the request produces.
    associatedtype Value: Sendable
    /// Runs the request on a connection.
    func fetch(_ db: Database) throws -> Value
}
