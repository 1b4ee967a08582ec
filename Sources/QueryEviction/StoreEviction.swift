#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Which stores of a cache a ``QueryEvictionPolicy`` lets go, and when: the bookkeeping of
/// `QueryCache`'s `QueryClient` and of the live-query engine's cache.
///
/// It knows each store by its owner's key, when it was last used, and in which order stores were
/// used; whether a store is in use now, the owner says when asked (`status`). Finding the stores
/// to evict costs in proportion to those evicted, except for the scan of idle stores, which runs
/// at most once per sixteenth of the timeout.
///
/// The live-query engine's keys are `Int`s: its uses, on every reader's attach, call copies
/// specialized for them (`@_specialize(exported:)`), since unspecialized code looks up the type
/// metadata of its entries and nodes on every call, at a cost greater than the call's work.
package struct StoreEviction<Key: Hashable> {
    private struct Entry {
        var lastUsedAt: Date
        /// The key's node in `recency`.
        var node: Int
    }

    /// The policy; changing it makes the next eviction scan every store.
    package var policy: QueryEvictionPolicy {
        didSet { nextExpiryCheck = .distantPast }
    }
    private var entries: [Key: Entry] = [:]
    /// Orders uses for least-recently-used eviction, even when the clock stands still.
    private var recency = RecencyList<Key>()
    /// No store can expire before this date, so evictions skip the scan until then.
    private var nextExpiryCheck = Date.distantPast

    package init(policy: QueryEvictionPolicy) {
        self.policy = policy
    }

    /// How many stores it knows.
    package var count: Int { entries.count }

    /// Records a use of `key`'s store at `now`, adding the key if it is new.
    @_specialize(exported:true,where Key == Int)
    package mutating func use(_ key: Key, now: Date) {
        if let entry = entries[key] {
            recency.touch(entry.node)
            entries[key]!.lastUsedAt = now
        } else {
            entries[key] = Entry(lastUsedAt: now, node: recency.insert(key))
        }
    }

    /// Forgets `key`.
    @_specialize(exported:true,where Key == Int)
    package mutating func remove(_ key: Key) {
        guard let entry = entries.removeValue(forKey: key) else { return }
        recency.remove(entry.node)
    }

    /// Forgets every key.
    package mutating func removeAll() {
        entries.removeAll()
        recency = RecencyList()
    }

    /// The keys whose stores go now, already forgotten: those idle for longer than the timeout
    /// (looked for only when some may be, unless `scan`), then the least recently used beyond the
    /// maximum count. `keeping` and stores in use stay; a store found in use counts as used now.
    @_specialize(exported:true,where Key == Int)
    package mutating func evict(
        now: Date, keeping kept: Key?, scan: Bool = false, status: (Key) -> EvictionStatus
    ) -> [Key] {
        var evicted: [Key] = []
        if scan || now >= nextExpiryCheck { evictExpired(now: now, keeping: kept, status: status, into: &evicted) }
        evictLeastRecentlyUsed(keeping: kept, status: status, into: &evicted)
        return evicted
    }

    private mutating func evictExpired(
        now: Date, keeping kept: Key?, status: (Key) -> EvictionStatus, into evicted: inout [Key]
    ) {
        let timeout = policy.idleTimeout
        // A store that goes idle after this scan is idle from now on at the earliest.
        var nextCheck = now.addingTimeInterval(timeout)
        var expired: [Key] = []
        for (key, entry) in entries where key != kept {
            let status = status(key)
            guard !status.isInUse else { continue }
            let idleSince = max(entry.lastUsedAt, status.unsubscribedSince ?? entry.lastUsedAt)
            let expiry = idleSince.addingTimeInterval(timeout)
            if expiry <= now {
                expired.append(key)
            } else {
                nextCheck = min(nextCheck, expiry)
            }
        }
        for key in expired { remove(key) }
        evicted += expired
        nextExpiryCheck = max(nextCheck, now.addingTimeInterval(timeout / 16))
    }

    private mutating func evictLeastRecentlyUsed(
        keeping kept: Key?, status: (Key) -> EvictionStatus, into evicted: inout [Key]
    ) {
        guard let maxCount = policy.maxStoreCount else { return }
        var node = recency.oldest
        var visited = 0
        let count = entries.count
        while entries.count > maxCount, node >= 0, visited < count {
            let next = recency.nodes[node].newer
            let key = recency.nodes[node].key!
            visited += 1
            if key == kept || status(key).isInUse {
                recency.touch(node)
            } else {
                remove(key)
                evicted.append(key)
            }
            node = next
        }
    }
}

/// The facts eviction needs about a store, read together and without registering observation
/// dependencies.
package struct EvictionStatus {
    package var isInUse: Bool
    package var unsubscribedSince: Date?

    package init(isInUse: Bool, unsubscribedSince: Date?) {
        self.isInUse = isInUse
        self.unsubscribedSince = unsubscribedSince
    }
}

/// Keys from least to most recently used: a doubly linked list kept in an array, so that a use
/// moves its key to the end, and eviction finds the least recently used, in constant time
/// whatever the number of keys.
struct RecencyList<Key> {
    struct Node {
        var key: Key?
        var older = -1
        var newer = -1
    }

    private(set) var nodes: [Node] = []
    private var freeNodes: [Int] = []
    private(set) var oldest = -1
    private var newest = -1

    /// Adds `key` as the most recently used, and returns its node.
    mutating func insert(_ key: Key) -> Int {
        let node: Int
        if let free = freeNodes.popLast() {
            nodes[free] = Node(key: key)
            node = free
        } else {
            nodes.append(Node(key: key))
            node = nodes.count - 1
        }
        link(node)
        return node
    }

    /// Makes `node` the most recently used.
    mutating func touch(_ node: Int) {
        guard node != newest else { return }
        unlink(node)
        link(node)
    }

    mutating func remove(_ node: Int) {
        unlink(node)
        nodes[node].key = nil
        freeNodes.append(node)
    }

    private mutating func link(_ node: Int) {
        nodes[node].older = newest
        nodes[node].newer = -1
        if newest >= 0 { nodes[newest].newer = node } else { oldest = node }
        newest = node
    }

    private mutating func unlink(_ node: Int) {
        let (older, newer) = (nodes[node].older, nodes[node].newer)
        if older >= 0 { nodes[older].newer = newer } else { oldest = newer }
        if newer >= 0 { nodes[newer].older = older } else { newest = older }
    }
}
