import Locking

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Caches one ``QueryStore`` per ``QueryPath`` and acts on groups of stores by path prefix.
///
/// Lookups are a dictionary access under a lock, so getting back a cached store, and reading its
/// `currentValue`, is synchronous and cheap.
///
/// ```swift
/// let client = QueryClient()
/// let store = client.store(for: PlayerQuery(id: 1))
/// try await store.fetch()
///
/// client.store(for: PlayerQuery(id: 1).path, of: PlayerQuery.State.self)?.currentValue
/// client.invalidate(matching: ["players"])
/// ```
public final class QueryClient: Sendable {
    fileprivate struct Entry {
        let store: any EvictableQueryStore
        var lastAccessedAt: Date
        /// The store's node in `Storage.recency`.
        var recencyNode: Int
    }

    fileprivate struct Storage {
        var entries: [QueryPath: Entry] = [:]
        var defaultContext: QueryContext
        var evictionPolicy: QueryEvictionPolicy
        /// Orders lookups for least-recently-used eviction, even when the clock stands still.
        var recency = RecencyList()
        /// No store can expire before this date, so lookups skip the scan until then.
        var nextEvictionCheck = Date.distantPast
        var evictionHandler: (@Sendable ([any OpaqueQueryStore]) -> Void)?
    }

    private let storage: Lock<Storage>

    /// Creates a client whose stores start from `defaultContext`.
    public init(
        defaultContext: QueryContext = QueryContext(),
        evictionPolicy: QueryEvictionPolicy = QueryEvictionPolicy()
    ) {
        self.storage = Lock(Storage(defaultContext: defaultContext, evictionPolicy: evictionPolicy))
    }

    /// The context new stores start from. The client's clock (`queryClock`) drives eviction.
    public var defaultContext: QueryContext {
        get { storage.withLock { $0.defaultContext } }
        set { storage.withLock { $0.defaultContext = newValue } }
    }

    /// The eviction policy.
    public var evictionPolicy: QueryEvictionPolicy {
        get { storage.withLock { $0.evictionPolicy } }
        set {
            storage.withLock {
                $0.evictionPolicy = newValue
                $0.nextEvictionCheck = .distantPast
            }
        }
    }

    /// Called with the stores that eviction removed, after each eviction that removed some, on
    /// the thread whose lookup triggered it and outside the client's lock, so it may use the
    /// client. For owners that keep something per store and must forget it too.
    ///
    /// ```swift
    /// client.evictionHandler = { stores in for store in stores { index.remove(store.path) } }
    /// ```
    public var evictionHandler: (@Sendable (_ evicted: [any OpaqueQueryStore]) -> Void)? {
        get { storage.withLock { $0.evictionHandler } }
        set { storage.withLock { $0.evictionHandler = newValue } }
    }

    // MARK: Getting stores

    /// The store for `query`'s path, created from `initialState` if there is none.
    ///
    /// A store created here runs `query.setup(context:)` on the client's default context, with
    /// ``QueryContext/queryClient`` set to this client. Asking for an existing path with a
    /// different state type is a programming error and traps.
    public func store<Query: QueryRequest>(
        for query: Query,
        initialState: Query.State
    ) -> QueryStore<Query.State> {
        let path = query.path
        if let existing = store(for: path, of: Query.State.self) { return existing }
        // Built outside the lock because `setup(context:)` is user code that may use the client.
        var context = defaultContext
        context.queryClient = self
        let created = QueryStore(query: query, initialState: initialState, initialContext: context)
        let (store, evicted) = storage.withLock { storage -> (QueryStore<Query.State>, Evicted) in
            let now = storage.defaultContext.queryClock.now()
            if let existing = access(path, of: Query.State.self, now: now, in: &storage) {
                return (existing, Evicted())
            }
            storage.entries[path] = Entry(
                store: created, lastAccessedAt: now, recencyNode: storage.recency.insert(path))
            return (created, evictIfDue(now: now, keeping: path, in: &storage))
        }
        evicted.report()
        return store
    }

    /// The store for `query`'s path, created with `initialValue` if there is none.
    ///
    /// ```swift
    /// let store = client.store(for: PlayerQuery(id: 1))
    /// ```
    public func store<Query: QueryRequest>(
        for query: Query,
        initialValue: Query.Value? = nil
    ) -> QueryStore<Query.State> where Query.State == QueryState<Query.Value?, Query.Value> {
        store(for: query, initialState: QueryState(initialValue: initialValue))
    }

    /// The existing store at exactly `path`, or `nil`. Never creates a store or starts a fetch.
    ///
    /// ```swift
    /// if let store = client.store(for: key.path, of: ItemsQuery.State.self) {
    ///   show(store.currentValue)
    ///   store.revalidateIfStale()
    /// }
    /// ```
    public func store<State: QueryStateProtocol>(
        for path: QueryPath,
        of stateType: State.Type = State.self
    ) -> QueryStore<State>? {
        let (store, evicted) = storage.withLock { storage in
            let now = storage.defaultContext.queryClock.now()
            let store = access(path, of: State.self, now: now, in: &storage)
            return (store, evictIfDue(now: now, keeping: path, in: &storage))
        }
        evicted.report()
        return store
    }

    /// The existing store at exactly `path`, whatever its state type.
    public func opaqueStore(for path: QueryPath) -> (any OpaqueQueryStore)? {
        storage.withLock { $0.entries[path]?.store }
    }

    /// The stores whose paths start with `path` and whose state is `State`.
    ///
    /// ```swift
    /// for store in client.stores(matching: ["nearby-events"], of: NearbyEventsQuery.State.self) {
    ///   print(store.currentValue)
    /// }
    /// ```
    public func stores<State: QueryStateProtocol>(
        matching path: QueryPath,
        of stateType: State.Type
    ) -> [QueryStore<State>] {
        matchingStores(path).compactMap { $0 as? QueryStore<State> }
    }

    /// The stores whose paths start with `path`, of any state type. The empty path matches all.
    public func stores(matching path: QueryPath = []) -> [any OpaqueQueryStore] {
        matchingStores(path)
    }

    /// How many stores the client holds.
    public var storeCount: Int {
        storage.withLock { $0.entries.count }
    }

    // MARK: Acting on stores

    /// Marks every store whose path starts with `path` stale. With `refetch` (the default), those
    /// with subscribers refetch at once; the others refetch when used again.
    ///
    /// ```swift
    /// client.invalidate(matching: ["posts"])                  // refetch what is on screen
    /// client.invalidate(matching: ["posts"], refetch: false)  // only mark stale
    /// ```
    public func invalidate(matching path: QueryPath = [], refetch: Bool = true) {
        for store in matchingStores(path) { store.invalidate(refetch: refetch) }
    }

    /// Sets the value of `query`'s store, creating the store if needed; for optimistic updates.
    ///
    /// ```swift
    /// client.setValue(updatedPost, for: Post.query(for: post.id))
    /// ```
    @discardableResult
    public func setValue<Query: QueryRequest>(
        _ value: Query.Value,
        for query: Query
    ) -> QueryStore<Query.State> where Query.State == QueryState<Query.Value?, Query.Value> {
        let queryStore = store(for: query)
        queryStore.setValue(value)
        return queryStore
    }

    /// Removes every store whose path starts with `path`. Removed stores keep working for whoever
    /// holds them; a later lookup creates a fresh store.
    public func remove(matching path: QueryPath) {
        storage.withLock { storage in
            for key in storage.entries.keys.filter({ path.isPrefix(of: $0) }) {
                if let removed = storage.entries.removeValue(forKey: key) {
                    storage.recency.remove(removed.recencyNode)
                }
            }
        }
    }

    /// Removes every store.
    public func removeAll() {
        storage.withLock { storage in
            storage.entries.removeAll()
            storage.recency = RecencyList()
        }
    }

    /// Evicts, now, the stores that ``evictionPolicy`` allows to go.
    public func evictExpired() {
        storage.withLock { storage in
            evict(now: storage.defaultContext.queryClock.now(), keeping: nil, in: &storage)
        }.report()
    }

    // MARK: Internals

    private func matchingStores(_ path: QueryPath) -> [any EvictableQueryStore] {
        storage.withLock { storage in
            storage.entries.compactMap { key, entry in path.isPrefix(of: key) ? entry.store : nil }
        }
    }

    private func access<State: QueryStateProtocol>(
        _ path: QueryPath,
        of stateType: State.Type,
        now: Date,
        in storage: inout Storage
    ) -> QueryStore<State>? {
        guard let index = storage.entries.index(forKey: path) else { return nil }
        let entry = storage.entries.values[index]
        guard let store = entry.store as? QueryStore<State> else {
            preconditionFailure(
                "The store at \(path) holds \(type(of: entry.store)), not QueryStore<\(State.self)>."
            )
        }
        storage.recency.touch(entry.recencyNode)
        storage.entries.values[index].lastAccessedAt = now
        return store
    }

    /// Stores evicted under the lock, to report to the handler once it is released.
    fileprivate struct Evicted {
        var stores: [any OpaqueQueryStore] = []
        var handler: (@Sendable ([any OpaqueQueryStore]) -> Void)?

        func report() {
            if !stores.isEmpty, let handler { handler(stores) }
        }
    }

    private func evictIfDue(now: Date, keeping path: QueryPath?, in storage: inout Storage) -> Evicted {
        var evicted = Evicted(handler: storage.evictionHandler)
        if now >= storage.nextEvictionCheck { evictExpired(now: now, keeping: path, in: &storage, into: &evicted) }
        evictLeastRecentlyUsed(keeping: path, in: &storage, into: &evicted)
        return evicted
    }

    private func evict(now: Date, keeping path: QueryPath?, in storage: inout Storage) -> Evicted {
        var evicted = Evicted(handler: storage.evictionHandler)
        evictExpired(now: now, keeping: path, in: &storage, into: &evicted)
        evictLeastRecentlyUsed(keeping: path, in: &storage, into: &evicted)
        return evicted
    }

    /// Removes the stores idle for longer than the policy's timeout. A scan visits every store, so
    /// lookups run one only when some store may have expired, and at most once per sixteenth of
    /// the timeout: a store may outlive its timeout by that much.
    private func evictExpired(
        now: Date, keeping path: QueryPath?, in storage: inout Storage, into evicted: inout Evicted
    ) {
        let timeout = storage.evictionPolicy.idleTimeout
        // A store that goes idle after this scan is idle from now on at the earliest.
        var nextCheck = now.addingTimeInterval(timeout)
        var expired: [QueryPath] = []
        for (key, entry) in storage.entries where key != path {
            let status = entry.store.evictionStatus
            guard !status.isInUse else { continue }
            let idleSince = max(entry.lastAccessedAt, status.unsubscribedSince ?? entry.lastAccessedAt)
            let expiry = idleSince.addingTimeInterval(timeout)
            if expiry <= now {
                expired.append(key)
            } else {
                nextCheck = min(nextCheck, expiry)
            }
        }
        for key in expired {
            if let removed = storage.entries.removeValue(forKey: key) {
                storage.recency.remove(removed.recencyNode)
                evicted.append(removed.store)
            }
        }
        storage.nextEvictionCheck = max(nextCheck, now.addingTimeInterval(timeout / 16))
    }

    /// Removes least recently used stores that nobody uses until at most the policy's maximum
    /// remain. A store found in use counts as used now.
    private func evictLeastRecentlyUsed(
        keeping path: QueryPath?, in storage: inout Storage, into evicted: inout Evicted
    ) {
        guard let maxCount = storage.evictionPolicy.maxStoreCount else { return }
        var node = storage.recency.oldest
        var visited = 0
        let count = storage.entries.count
        while storage.entries.count > maxCount, node >= 0, visited < count {
            let next = storage.recency.nodes[node].newer
            let key = storage.recency.nodes[node].path
            visited += 1
            if key == path || storage.entries[key]?.store.evictionStatus.isInUse != false {
                storage.recency.touch(node)
            } else if let removed = storage.entries.removeValue(forKey: key) {
                storage.recency.remove(node)
                evicted.append(removed.store)
            }
            node = next
        }
    }
}

extension QueryClient.Evicted {
    mutating func append(_ store: any OpaqueQueryStore) {
        if handler != nil { stores.append(store) }
    }
}

/// The paths of a client's stores from least to most recently used: a doubly linked list kept in
/// an array, so that a lookup moves its store to the end, and eviction finds the least recently
/// used store, in constant time whatever the number of stores.
struct RecencyList {
    struct Node {
        var path: QueryPath
        var older = -1
        var newer = -1
    }

    private(set) var nodes: [Node] = []
    private var freeNodes: [Int] = []
    private(set) var oldest = -1
    private var newest = -1

    /// Adds `path` as the most recently used, and returns its node.
    mutating func insert(_ path: QueryPath) -> Int {
        let node: Int
        if let free = freeNodes.popLast() {
            nodes[free] = Node(path: path)
            node = free
        } else {
            nodes.append(Node(path: path))
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
        nodes[node].path = QueryPath(elements: [])
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
