#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What every ``QueryStore`` offers regardless of its state type, for code that handles stores of
/// many queries at once, such as invalidating everything a database commit touched.
///
/// ```swift
/// for store in client.stores(matching: ["db", "items"]) {
///   store.invalidate(refetch: false)
/// }
/// ```
public protocol OpaqueQueryStore: AnyObject, Sendable {
    /// The path identifying the store's query.
    var path: QueryPath { get }
    /// Whether a fetch is running.
    var isLoading: Bool { get }
    /// Whether the value should be refetched.
    var isStale: Bool { get }
    /// When the latest value arrived, by the query clock.
    var valueLastUpdatedAt: Date? { get }
    /// How many subscriptions are active.
    var subscriberCount: Int { get }
    /// Whether anyone is subscribed.
    var hasSubscribers: Bool { get }
    /// When the last subscriber left, or `nil` while subscribed.
    var unsubscribedSince: Date? { get }

    /// Marks the value stale, refetching at once if `refetch` and the store has subscribers.
    func invalidate(refetch: Bool)
    /// Starts a background fetch unless one is running.
    @discardableResult func revalidate() -> Bool
    /// Starts a background fetch if the value is stale and no fetch is running.
    @discardableResult func revalidateIfStale() -> Bool
    /// Cancels the running fetch.
    func cancel()
    /// Cancels any running fetch and returns to the initial state.
    func resetState()
}

extension QueryStore: OpaqueQueryStore {}

/// A store whose owner can ask it what eviction needs to know.
package protocol EvictableQueryStore: OpaqueQueryStore {
    var evictionStatus: EvictionStatus { get }
}
