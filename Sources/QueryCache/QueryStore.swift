import Locking
import Observation

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Holds the state of one query and runs its fetches.
///
/// A store is `Sendable` and `Observable`: any task may fetch while others read its state, and
/// every read is synchronous.
///
/// ```swift
/// let store = QueryStore.detached(query: Post.query(for: 1), initialValue: nil)
/// store.context.queryDelayer = .noDelay
/// let post = try await store.fetch()
/// store.currentValue  // the same post
/// ```
///
/// Concurrent `fetch()` calls share one running fetch (see
/// ``QueryContext/queryDeduplicatesFetches``). Cancelling always leaves a consistent state:
/// `isLoading` becomes `false`, the previous value stays, and every waiting caller gets
/// `CancellationError`.
public final class QueryStore<State: QueryStateProtocol>: Sendable {
    /// The type a fetch returns.
    public typealias Value = State.QueryValue

    private typealias Fetcher =
        @Sendable (QueryContext, QueryContinuation<Value>) async throws -> Value

    private struct Storage {
        var state: State
        var context: QueryContext
        var isInvalidated = false
        /// Identifies the running fetch. Bumped whenever a fetch starts or is abandoned, so results
        /// and yields from an abandoned fetch are recognised and dropped.
        var generation: UInt64 = 0
        var task: Task<Void, Never>?
        var nextID: UInt64 = 0
        /// Callers of `fetch()` that have an id but have not registered a continuation yet.
        var issuedWaiters: Set<UInt64> = []
        /// Callers cancelled before they registered; they must not wait.
        var cancelledWaiters: Set<UInt64> = []
        var waiters: [UInt64: CheckedContinuation<Value, any Error>] = [:]
        var subscribers: [UInt64: StateSubscriber<State>] = [:]
        var unsubscribedSince: Date?

        mutating func makeID() -> UInt64 {
            nextID += 1
            return nextID
        }

        /// Tells every subscriber about the current state; call `deliver` after unlocking.
        func enqueueState() -> [StateSubscriber<State>] {
            let subscribers = Array(subscribers.values)
            for subscriber in subscribers { subscriber.enqueue(state) }
            return subscribers
        }

        /// Abandons the running fetch, returning the callers to resume with `CancellationError`.
        mutating func abandonFetch() -> [CheckedContinuation<Value, any Error>] {
            guard let task else { return [] }
            task.cancel()
            self.task = nil
            generation += 1
            state.setLoading(false)
            defer { waiters.removeAll() }
            return Array(waiters.values)
        }
    }

    /// The path identifying this store's query.
    public let path: QueryPath
    private let fetcher: Fetcher
    private let storage: Lock<Storage>
    private let registrar = ObservationRegistrar()
    /// The key path Observation knows the state by. A generic class's key paths are built at run
    /// time on every use, at a cost greater than the rest of a read, so each store builds it once.
    private let statePath: KeyPath<QueryStore, State> & Sendable = \.state

    /// A store of `query`, outside any client: for owners that keep their own stores.
    package init<Query: QueryRequest>(
        query: Query,
        initialState: State,
        initialContext: QueryContext
    ) where Query.State == State {
        var context = initialContext
        query.setup(context: &context)
        self.path = query.path
        self.fetcher = { context, continuation in
            try await query.fetch(in: context, with: continuation)
        }
        var storage = Storage(state: initialState, context: context)
        storage.unsubscribedSince = context.queryClock.now()
        self.storage = Lock(storage)
    }

    deinit {
        storage.withLock { $0.task?.cancel() }
    }

    // MARK: Creating detached stores

    /// Creates a store that belongs to no ``QueryClient``.
    ///
    /// ```swift
    /// let store = QueryStore.detached(query: Post.query(for: 1), initialValue: nil)
    /// ```
    public static func detached<Query: QueryRequest, Wrapped>(
        query: Query,
        initialValue: Wrapped? = nil,
        initialContext: QueryContext = QueryContext()
    ) -> QueryStore<State> where Query.State == State, State == QueryState<Wrapped?, Wrapped> {
        QueryStore(
            query: query,
            initialState: QueryState(initialValue: initialValue),
            initialContext: initialContext
        )
    }

    /// Creates a store that belongs to no ``QueryClient``, starting from `initialState`.
    public static func detached<Query: QueryRequest>(
        query: Query,
        initialState: State,
        initialContext: QueryContext = QueryContext()
    ) -> QueryStore<State> where Query.State == State {
        QueryStore(query: query, initialState: initialState, initialContext: initialContext)
    }

    // MARK: Reading state

    /// The whole state. Reading it registers an observation dependency.
    public var state: State {
        registrar.access(self, keyPath: statePath)
        return storage.withLock { $0.state }
    }

    /// The latest value, or the initial value if none arrived yet.
    public var currentValue: State.StateValue { state.currentValue }
    /// Whether a fetch is running.
    public var isLoading: Bool { state.isLoading }
    /// The latest error, cleared when a value arrives.
    public var error: (any Error)? { state.error }
    /// When the latest value arrived, by the query clock.
    public var valueLastUpdatedAt: Date? { state.valueLastUpdatedAt }
    /// When the latest error arrived, by the query clock.
    public var errorLastUpdatedAt: Date? { state.errorLastUpdatedAt }
    /// How many values arrived.
    public var valueUpdateCount: Int { state.valueUpdateCount }
    /// How many errors arrived.
    public var errorUpdateCount: Int { state.errorUpdateCount }

    /// Whether the value should be refetched: there is none yet, the store was invalidated, or the
    /// value is older than ``QueryContext/queryStaleDuration`` by the query clock.
    ///
    /// Only invalidation notifies observers; the passing of time does not.
    public var isStale: Bool {
        registrar.access(self, keyPath: statePath)
        return storage.withLock { storage in
            if storage.isInvalidated { return true }
            guard let updatedAt = storage.state.valueLastUpdatedAt else { return true }
            guard let duration = storage.context.queryStaleDuration else { return false }
            return storage.context.queryClock.now().timeIntervalSince(updatedAt) >= duration
        }
    }

    /// The context fetches run with. Changes apply to the next fetch.
    ///
    /// ```swift
    /// store.context.queryDelayer = .noDelay
    /// ```
    public var context: QueryContext {
        get { storage.withLock { $0.context } }
        set { storage.withLock { $0.context = newValue } }
    }

    // MARK: Fetching

    /// Fetches the value, joining a fetch that is already running, and returns the result.
    ///
    /// If the calling task is cancelled this throws `CancellationError` at once; the shared fetch is
    /// cancelled too when no other caller waits and nobody is subscribed.
    @discardableResult
    public func fetch() async throws -> Value {
        let id = storage.withLock { storage in
            let id = storage.makeID()
            storage.issuedWaiters.insert(id)
            return id
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let started = storage.withLock { storage -> Bool in
                    storage.issuedWaiters.remove(id)
                    if storage.cancelledWaiters.remove(id) != nil {
                        continuation.resume(throwing: CancellationError())
                        return false
                    }
                    storage.waiters[id] = continuation
                    if storage.task != nil && storage.context.queryDeduplicatesFetches { return false }
                    startFetch(&storage)
                    return true
                }
                if started { notifyStateChanged() }
            }
        } onCancel: {
            leave(waiter: id)
        }
    }

    /// Starts a fetch in the background unless one is running. `isLoading` is `true` when this
    /// returns. Returns whether a new fetch started.
    @discardableResult
    public func revalidate() -> Bool {
        let started = storage.withLock { storage -> Bool in
            guard storage.task == nil else { return false }
            startFetch(&storage)
            return true
        }
        if started { notifyStateChanged() }
        return started
    }

    /// Starts a background fetch if the value ``isStale`` and no fetch is running. Returns whether
    /// a fetch started.
    ///
    /// ```swift
    /// let store = client.store(for: query)   // the cached value is readable at once
    /// store.revalidateIfStale()              // and refreshed in the background if needed
    /// ```
    @discardableResult
    public func revalidateIfStale() -> Bool {
        isStale ? revalidate() : false
    }

    /// Cancels the running fetch. `isLoading` becomes `false`, the value and error stay, and every
    /// caller waiting in `fetch()` gets `CancellationError`, whether or not the fetch itself
    /// honours cancellation.
    public func cancel() {
        let (waiters, subscribers, changed) = storage.withLock { storage in
            let changed = storage.task != nil
            let waiters = storage.abandonFetch()
            return (waiters, changed ? storage.enqueueState() : [], changed)
        }
        for waiter in waiters { waiter.resume(throwing: CancellationError()) }
        if changed { notifyObservers(then: subscribers) }
    }

    /// Cancels any running fetch and returns to the initial state.
    public func resetState() {
        let (waiters, subscribers) = storage.withLock { storage in
            let waiters = storage.abandonFetch()
            storage.state.reset()
            storage.isInvalidated = false
            return (waiters, storage.enqueueState())
        }
        for waiter in waiters { waiter.resume(throwing: CancellationError()) }
        notifyObservers(then: subscribers)
    }

    /// Marks the value stale. With `refetch` (the default) a store that has subscribers refetches
    /// at once; one without waits until it is used again (see ``revalidateIfStale()``).
    public func invalidate(refetch: Bool = true) {
        let (hasSubscribers, subscribers) = storage.withLock { storage in
            storage.isInvalidated = true
            return (!storage.subscribers.isEmpty, storage.enqueueState())
        }
        notifyObservers(then: subscribers)
        if refetch && hasSubscribers { revalidate() }
    }

    /// Replaces the value, for instance for an optimistic update, timestamped by the query clock.
    /// A running fetch is not cancelled and will overwrite the value when it finishes; call
    /// ``cancel()`` first if that is not wanted.
    public func setValue(_ value: Value) {
        setResult(.success(value))
    }

    /// Records a result obtained outside the store, timestamped by the query clock, as a fetch
    /// that returned it would: a value replaces the value and clears the error and any
    /// invalidation; an error is recorded and the previous value stays. For stores fed by some
    /// other source, such as a database observer that refetches after each commit. A running fetch
    /// is not cancelled.
    ///
    /// ```swift
    /// store.setResult(Result { try database.fetchItems() })
    /// ```
    public func setResult(_ result: Result<Value, any Error>) {
        let subscribers = storage.withLock { storage in
            let date = storage.context.queryClock.now()
            switch result {
            case .success(let value):
                storage.state.applyValue(value, at: date)
                storage.isInvalidated = false
            case .failure(let error):
                storage.state.applyError(error, at: date)
            }
            return storage.enqueueState()
        }
        notifyObservers(then: subscribers)
    }

    // MARK: Subscribing

    /// Calls `handler` with the current state now and with every later state, in order, until the
    /// subscription is cancelled. Subscribing to a stale store starts a fetch unless
    /// ``QueryContext/queryFetchesOnSubscribe`` is `false`.
    public func subscribe(
        _ handler: @escaping @Sendable (State) -> Void
    ) -> QuerySubscription {
        let subscriber = StateSubscriber(handler: handler)
        let (id, fetchesOnSubscribe) = storage.withLock { storage in
            let id = storage.makeID()
            storage.subscribers[id] = subscriber
            storage.unsubscribedSince = nil
            subscriber.enqueue(storage.state)
            return (id, storage.context.queryFetchesOnSubscribe)
        }
        subscriber.drain()
        if fetchesOnSubscribe { revalidateIfStale() }
        return QuerySubscription { [weak self] in
            subscriber.cancel()
            self?.unsubscribe(id)
        }
    }

    /// The current state followed by every later state. The stream counts as a subscriber until
    /// it is dropped or its consumer is cancelled.
    public var states: AsyncStream<State> {
        AsyncStream { continuation in
            let subscription = subscribe { continuation.yield($0) }
            continuation.onTermination = { _ in subscription.cancel() }
        }
    }

    /// How many subscriptions (including `states` streams) are active.
    public var subscriberCount: Int {
        storage.withLock { $0.subscribers.count }
    }

    /// Whether anyone is subscribed.
    public var hasSubscribers: Bool { subscriberCount > 0 }

    /// When the last subscriber left (or the store was created), by the query clock; `nil` while
    /// subscribed. Eviction measures idle time from here.
    public var unsubscribedSince: Date? {
        storage.withLock { $0.unsubscribedSince }
    }

    // MARK: Internals

    /// Waiting callers in `fetch()`. For tests that need to know every caller has joined.
    var waiterCount: Int {
        storage.withLock { $0.waiters.count }
    }

    private func unsubscribe(_ id: UInt64) {
        storage.withLock { storage in
            guard storage.subscribers.removeValue(forKey: id) != nil else { return }
            if storage.subscribers.isEmpty {
                storage.unsubscribedSince = storage.context.queryClock.now()
            }
        }
    }

    private func startFetch(_ storage: inout Storage) {
        if let running = storage.task {
            // Only reached with deduplication off: the new fetch replaces the running one and
            // inherits its waiters.
            running.cancel()
        }
        storage.generation += 1
        let generation = storage.generation
        let context = storage.context
        storage.state.setLoading(true)
        for subscriber in storage.subscribers.values { subscriber.enqueue(storage.state) }
        storage.task = Task {
            await self.run(generation: generation, context: context)
        }
    }

    private func run(generation: UInt64, context: QueryContext) async {
        let continuation = QueryContinuation<Value> { [weak self] result, yieldContext in
            self?.applyYield(result, context: yieldContext ?? context, generation: generation)
        }
        let result: Result<Value, any Error>
        do {
            result = .success(try await fetchWithRetries(context: context, continuation: continuation))
        } catch {
            result = .failure(error)
        }
        finish(generation: generation, result: result, context: context)
    }

    private func fetchWithRetries(
        context: QueryContext,
        continuation: QueryContinuation<Value>
    ) async throws -> Value {
        var context = context
        let maxRetries = max(0, context.maxRetries)
        var attempt = 0
        while true {
            context.retryIndex = attempt
            if attempt > 0 {
                try await context.queryDelayer.delay(
                    for: context.queryBackoffFunction.delay(forRetry: attempt)
                )
            }
            do {
                return try await fetcher(context, continuation)
            } catch {
                guard !Task.isCancelled, attempt < maxRetries,
                    context.queryRetryPredicate.shouldRetry(error, in: context)
                else { throw error }
                attempt += 1
            }
        }
    }

    private func applyYield(
        _ result: Result<Value, any Error>,
        context: QueryContext,
        generation: UInt64
    ) {
        let subscribers = storage.withLock { storage -> [StateSubscriber<State>]? in
            guard storage.generation == generation, storage.task != nil else { return nil }
            let date = context.queryClock.now()
            switch result {
            case .success(let value): storage.state.applyValue(value, at: date)
            case .failure(let error): storage.state.applyError(error, at: date)
            }
            return storage.enqueueState()
        }
        if let subscribers { notifyObservers(then: subscribers) }
    }

    private func finish(
        generation: UInt64,
        result: Result<Value, any Error>,
        context: QueryContext
    ) {
        let outcome = storage.withLock {
            storage -> ([CheckedContinuation<Value, any Error>], Result<Value, any Error>, [StateSubscriber<State>])? in
            guard storage.generation == generation, storage.task != nil else { return nil }
            storage.task = nil
            storage.state.setLoading(false)
            var delivered = result
            switch result {
            case .success(let value):
                storage.state.applyValue(value, at: context.queryClock.now())
                storage.isInvalidated = false
            case .failure(let error) where error is CancellationError:
                // A fetch that gave up on its own is a cancellation, not a failure worth showing.
                delivered = .failure(CancellationError())
            case .failure(let error):
                storage.state.applyError(error, at: context.queryClock.now())
            }
            defer { storage.waiters.removeAll() }
            return (Array(storage.waiters.values), delivered, storage.enqueueState())
        }
        guard let (waiters, delivered, subscribers) = outcome else { return }
        for waiter in waiters { waiter.resume(with: delivered) }
        notifyObservers(then: subscribers)
    }

    private func leave(waiter id: UInt64) {
        typealias Waiter = CheckedContinuation<Value, any Error>
        let (continuation, abandoned, subscribers) = storage.withLock {
            storage -> (Waiter?, [Waiter], [StateSubscriber<State>]) in
            if storage.issuedWaiters.remove(id) != nil {
                storage.cancelledWaiters.insert(id)
                return (nil, [], [])
            }
            guard let continuation = storage.waiters.removeValue(forKey: id) else {
                return (nil, [], [])
            }
            // Keep fetching for anyone else interested; otherwise nobody would see the result.
            guard storage.waiters.isEmpty, storage.subscribers.isEmpty, storage.task != nil else {
                return (continuation, [], [])
            }
            return (continuation, storage.abandonFetch(), storage.enqueueState())
        }
        continuation?.resume(throwing: CancellationError())
        for waiter in abandoned { waiter.resume(throwing: CancellationError()) }
        if !subscribers.isEmpty || !abandoned.isEmpty { notifyObservers(then: subscribers) }
    }

    private func notifyStateChanged() {
        let subscribers = storage.withLock { Array($0.subscribers.values) }
        notifyObservers(then: subscribers)
    }

    // Observers are told after the change, outside the lock, so their callbacks can read the
    // store; subscribers were enqueued under the lock, which keeps their deliveries in order.
    private func notifyObservers(then subscribers: [StateSubscriber<State>]) {
        registrar.withMutation(of: self, keyPath: statePath) {}
        for subscriber in subscribers { subscriber.drain() }
    }
}

extension QueryStore: Observable {}

extension QueryStore: EvictableQueryStore {
    package var evictionStatus: EvictionStatus {
        storage.withLock { storage in
            EvictionStatus(
                isInUse: !storage.subscribers.isEmpty || storage.task != nil || !storage.waiters.isEmpty,
                unsubscribedSince: storage.unsubscribedSince
            )
        }
    }
}
