import Locking

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Caches one ``QueryStore`` per `QueryPath` and acts on groups of stores by path prefix.
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
    fileprivate struct Storage {
        var stores: [QueryPath: any EvictableQueryStore] = [:]
        var defaultContext: QueryContext
        /// When each store was last looked up, and which ones the policy lets go.
        var eviction: StoreEviction<QueryPath>
        var evictionHandler: (@Sendable ([any OpaqueQueryStore]) -> Void)?
    }

    private let storage: Lock<Storage>

    /// Creates a client whose stores start from `defaultContext`.
    public init(
        defaultContext: QueryContext = QueryContext(),
        evictionPolicy: QueryEvictionPolicy = QueryEvictionPolicy()
    ) {
        self.storage = Lock(Storage(defaultContext: defaultContext, eviction: StoreEviction(policy: evictionPolicy)))
    }

    /// The context new stores start from. The client's clock (`queryClock`) drives eviction.
    public var defaultContext: QueryContext {
        get { storage.withLock { $0.defaultContext } }
        set { storage.withLock { $0.defaultContext = newValue } }
    }

    /// The eviction policy.
    public var evictionPolicy: QueryEvictionPolicy {
        get { storage.withLock { $0.eviction.policy } }
        set { storage.withLock { $0.eviction.policy = newValue } }
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
            storage.stores[path] = created
            storage.eviction.use(path, now: now)
            return (created, evict(now: now, keeping: path, in: &storage))
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
            return (store, evict(now: now, keeping: path, in: &storage))
        }
        evicted.report()
        return store
    }

    /// The existing store at exactly `path`, whatever its state type.
    public func opaqueStore(for path: QueryPath) -> (any OpaqueQueryStore)? {
        storage.withLock { $0.stores[path] }
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
        storage.withLock { $0.stores.count }
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
            for key in storage.stores.keys.filter({ path.isPrefix(of: $0) }) {
                storage.stores.removeValue(forKey: key)
                storage.eviction.remove(key)
            }
        }
    }

    /// Removes every store.
    public func removeAll() {
        storage.withLock { storage in
            storage.stores.removeAll()
            storage.eviction.removeAll()
        }
    }

    /// Evicts, now, the stores that ``evictionPolicy`` allows to go.
    public func evictExpired() {
        storage.withLock { storage in
            evict(now: storage.defaultContext.queryClock.now(), keeping: nil, scan: true, in: &storage)
        }.report()
    }

    // MARK: Internals

    private func matchingStores(_ path: QueryPath) -> [any EvictableQueryStore] {
        storage.withLock { storage in
            storage.stores.compactMap { key, store in path.isPrefix(of: key) ? store : nil }
        }
    }

    private func access<State: QueryStateProtocol>(
        _ path: QueryPath,
        of stateType: State.Type,
        now: Date,
        in storage: inout Storage
    ) -> QueryStore<State>? {
        guard let existing = storage.stores[path] else { return nil }
        guard let store = existing as? QueryStore<State> else {
            preconditionFailure(
                "The store at \(path) holds \(type(of: existing)), not QueryStore<\(State.self)>."
            )
        }
        storage.eviction.use(path, now: now)
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

    /// Evicts what the policy lets go (see `StoreEviction`), keeping `path`'s store.
    private func evict(now: Date, keeping path: QueryPath?, scan: Bool = false, in storage: inout Storage) -> Evicted {
        var evicted = Evicted(handler: storage.evictionHandler)
        let stores = storage.stores
        let keys = storage.eviction.evict(now: now, keeping: path, scan: scan) { stores[$0]!.evictionStatus }
        for key in keys {
            if let removed = storage.stores.removeValue(forKey: key) { evicted.append(removed) }
        }
        return evicted
    }
}

extension QueryClient.Evicted {
    mutating func append(_ store: any OpaqueQueryStore) {
        if handler != nil { stores.append(store) }
    }
}
