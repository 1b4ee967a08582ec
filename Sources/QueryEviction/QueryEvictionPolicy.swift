#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// When a cache forgets stores nobody uses: `QueryCache`'s `QueryClient`, and the cache of the
/// live-query engine behind `SharedReader`s.
///
/// A store is a candidate once it has no subscribers and no running fetch. It is evicted when it
/// has been idle (since its last subscriber left or its last lookup, whichever is later) for
/// ``idleTimeout`` by the cache's ``QueryClock``, or, least recently looked up first, when the
/// cache holds more than ``maxStoreCount`` stores. Eviction runs on lookups (and on
/// `QueryClient.evictExpired()`); nothing runs on a timer, so tests control it with the clock
/// alone. Lookups check for expired stores at most once per sixteenth of the timeout, so a store
/// may stay that much longer; the count is kept on every lookup, in constant time however many
/// stores there are. An evicted store keeps working for whoever still holds it.
///
/// ```swift
/// let client = QueryClient(evictionPolicy: QueryEvictionPolicy(idleTimeout: 60, maxStoreCount: 100))
/// ```
public struct QueryEvictionPolicy: Hashable, Sendable {
    /// Seconds an unused store is kept. Defaults to five minutes.
    public var idleTimeout: TimeInterval
    /// The most stores kept; `nil` means no limit. Stores in use are never evicted, so the count
    /// can exceed this while they are.
    public var maxStoreCount: Int?

    /// A policy that evicts unused stores after `idleTimeout` seconds, and beyond `maxStoreCount` stores.
    public init(idleTimeout: TimeInterval = 5 * 60, maxStoreCount: Int? = nil) {
        self.idleTimeout = idleTimeout
        self.maxStoreCount = maxStoreCount
    }

    /// Never evicts.
    public static let never = QueryEvictionPolicy(idleTimeout: .infinity, maxStoreCount: nil)
}
