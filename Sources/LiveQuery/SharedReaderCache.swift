import Locking
import QueryEviction

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The limits of the query cache behind ``SharedReader``s.
///
/// Each database has one cache, one entry per key (query and arguments): readers with equal keys
/// share it, and a reader that switches back to a key it loaded before shows the cached value at
/// once. An entry nobody reads is evicted after ``idleTimeout``, and beyond ``maxStoreCount``
/// entries the least recently used unread ones go first. Changes apply to every database.
///
/// ```swift
/// SharedReaderCache.idleTimeout = 60          // seconds; five minutes by default
/// SharedReaderCache.maxStoreCount = 200       // 1,000 by default; nil for no limit
/// ```
public enum SharedReaderCache {
    private static let policy = Lock(QueryEvictionPolicy(idleTimeout: 5 * 60, maxStoreCount: 1_000))

    /// Seconds an entry nobody reads is kept. Five minutes by default.
    public static var idleTimeout: TimeInterval {
        get { evictionPolicy.idleTimeout }
        set { update { $0.idleTimeout = newValue } }
    }

    /// The most entries kept per database, or `nil` for no limit. 1,000 by default. Entries that
    /// readers show are never evicted, so there can be more while they are.
    public static var maxStoreCount: Int? {
        get { evictionPolicy.maxStoreCount }
        set { update { $0.maxStoreCount = newValue } }
    }

    /// Whether a commit is matched against the rows and columns each query reads, rather than
    /// only its tables. True by default.
    ///
    /// With it, a write refetches only the queries it can change: an `UPDATE` of columns a query
    /// does not read, or of rows outside the filter of a query-builder request, refetches
    /// nothing (see the "Observing changes" article of `SharingSQLite`). Each write then records the changed rows' values
    /// while such a query is live. Set it to `false` to refetch every query that reads a
    /// changed table; it applies to queries fetched from then on.
    public static var observesRows: Bool {
        get { rowObservation.withLock { $0 } }
        set { rowObservation.withLock { $0 = newValue } }
    }

    private static let rowObservation = Lock(true)

    package static var evictionPolicy: QueryEvictionPolicy { policy.withLock { $0 } }

    /// The caches of every live-query engine, whatever its source, which changes to the limits
    /// reach. Held weakly: a cache goes with its engine.
    private static let caches = Lock<[WeakCache]>([])

    private struct WeakCache {
        weak var cache: (any LiveCache)?
    }

    /// Makes a new engine's cache follow the limits as they change.
    package static func register(_ cache: any LiveCache) {
        caches.withLock { caches in
            caches.removeAll { $0.cache == nil }
            caches.append(WeakCache(cache: cache))
        }
        // A change made since the engine read the policy reached the caches registered then.
        cache.evictionPolicy = evictionPolicy
    }

    private static func update(_ change: (inout QueryEvictionPolicy) -> Void) {
        let updated = policy.withLock { policy in
            change(&policy)
            return policy
        }
        for cache in caches.withLock({ $0.compactMap(\.cache) }) { cache.evictionPolicy = updated }
    }
}

/// A live-query engine's cache, as ``SharedReaderCache`` sees it: whatever the engine's source,
/// it follows the limits.
package protocol LiveCache: AnyObject, Sendable {
    var evictionPolicy: QueryEvictionPolicy { get set }
}
