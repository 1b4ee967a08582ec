import Foundation
import Synchronization

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
  private struct Entry {
    let store: any EvictableQueryStore
    var lastAccessedAt: Date
    /// Orders lookups for least-recently-used eviction even when the clock stands still.
    var accessTick: UInt64
  }

  private struct Storage {
    var entries: [QueryPath: Entry] = [:]
    var defaultContext: QueryContext
    var evictionPolicy: QueryEvictionPolicy
    var tick: UInt64 = 0
    /// No store can expire before this date, so lookups skip the scan until then.
    var nextEvictionCheck = Date.distantPast
  }

  private let storage: Mutex<Storage>

  /// Creates a client whose stores start from `defaultContext`.
  public init(
    defaultContext: QueryContext = QueryContext(),
    evictionPolicy: QueryEvictionPolicy = QueryEvictionPolicy()
  ) {
    self.storage = Mutex(Storage(defaultContext: defaultContext, evictionPolicy: evictionPolicy))
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
    return storage.withLock { storage in
      let now = storage.defaultContext.queryClock.now()
      if let existing = access(path, of: Query.State.self, now: now, in: &storage) {
        return existing
      }
      storage.tick += 1
      storage.entries[path] = Entry(store: created, lastAccessedAt: now, accessTick: storage.tick)
      evictIfDue(now: now, keeping: path, in: &storage)
      return created
    }
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
    storage.withLock { storage in
      let now = storage.defaultContext.queryClock.now()
      let store = access(path, of: State.self, now: now, in: &storage)
      evictIfDue(now: now, keeping: path, in: &storage)
      return store
    }
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
      for key in storage.entries.keys where path.isPrefix(of: key) {
        storage.entries.removeValue(forKey: key)
      }
    }
  }

  /// Removes every store.
  public func removeAll() {
    storage.withLock { $0.entries.removeAll() }
  }

  /// Evicts, now, the stores that ``evictionPolicy`` allows to go.
  public func evictExpired() {
    storage.withLock { storage in
      evict(now: storage.defaultContext.queryClock.now(), keeping: nil, in: &storage)
    }
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
    guard let entry = storage.entries[path] else { return nil }
    guard let store = entry.store as? QueryStore<State> else {
      preconditionFailure(
        "The store at \(path) holds \(type(of: entry.store)), not QueryStore<\(State.self)>."
      )
    }
    storage.tick += 1
    storage.entries[path]?.lastAccessedAt = now
    storage.entries[path]?.accessTick = storage.tick
    return store
  }

  private func evictIfDue(now: Date, keeping path: QueryPath?, in storage: inout Storage) {
    let overCapacity = storage.evictionPolicy.maxStoreCount.map { storage.entries.count > $0 } ?? false
    if overCapacity || now >= storage.nextEvictionCheck {
      evict(now: now, keeping: path, in: &storage)
    }
  }

  private func evict(now: Date, keeping path: QueryPath?, in storage: inout Storage) {
    let policy = storage.evictionPolicy
    // A store that goes idle after this scan is idle from now on at the earliest.
    var nextCheck = now.addingTimeInterval(policy.idleTimeout)
    var idle: [(path: QueryPath, tick: UInt64)] = []
    for (key, entry) in storage.entries where key != path {
      let status = entry.store.evictionStatus
      guard !status.isInUse else { continue }
      let idleSince = max(entry.lastAccessedAt, status.unsubscribedSince ?? entry.lastAccessedAt)
      let expiry = idleSince.addingTimeInterval(policy.idleTimeout)
      if expiry <= now {
        storage.entries.removeValue(forKey: key)
      } else {
        nextCheck = min(nextCheck, expiry)
        idle.append((key, entry.accessTick))
      }
    }
    if let maxCount = policy.maxStoreCount, storage.entries.count > maxCount {
      for candidate in idle.sorted(by: { $0.tick < $1.tick }) {
        guard storage.entries.count > maxCount else { break }
        storage.entries.removeValue(forKey: candidate.path)
      }
    }
    storage.nextEvictionCheck = nextCheck
  }
}
