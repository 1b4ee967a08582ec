import QueryCache
import Synchronization

/// Keeps the live values of one database current.
///
/// One center per database: it owns the query cache (a `QueryClient`, one store per query), hears
/// every commit of the database's writer connection, and refetches the queries whose read region
/// the commit touched — only those with readers; the others are marked stale and refetch when
/// used again. Commits by other connections and processes are noticed through
/// `PRAGMA data_version`, checked when the file changes.
final class ObservationCenter: Sendable {
    let writer: any DatabaseWriter
    let client: QueryClient

    private struct Entry {
        let store: any OpaqueQueryStore
        let coalescer: RefetchCoalescer
        var region: ObservedRegion = .everything
        var readerCount = 0
    }

    private struct State {
        var entries: [QueryPath: Entry] = [:]
        var readerCount = 0
        var monitor: FileChangeMonitor?
        /// The writer's `data_version` when last read; it only moves for others' commits.
        var dataVersion: Int64?
        /// Loads wait until the monitor has read `data_version`, so that no outside commit slips
        /// between a first fetch and the baseline it is compared with.
        var isWatching = false
        var watchWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())
    private let watchesFile: Bool

    private init(writer: any DatabaseWriter) {
        self.writer = writer
        var context = QueryContext()
        // A failing SQL statement fails the same way when retried; the next commit retries it.
        context.maxRetries = 0
        // Fetches start only through each query's coalescer, which keeps them in order.
        context.queryFetchesOnSubscribe = false
        client = QueryClient(defaultContext: context)
        let path = writer.path
        watchesFile = !(path.isEmpty || path == ":memory:" || path.hasPrefix("file::memory:") || path.contains("mode=memory"))
    }

    // MARK: Finding the center of a database

    /// One per live writer. The hook on the writer is installed once and outlives centers: a
    /// center goes with its last reader, and a later one takes over the same relay.
    private struct Registration {
        weak var writer: (any DatabaseWriter)?
        weak var center: ObservationCenter?
        let relay: CommitRelay
    }

    private static let registry = Mutex<[ObjectIdentifier: Registration]>([:])

    /// The center of `writer`, created (and its commit hook installed) on first use.
    ///
    /// Installing the hook runs on the writer's queue, so this must not be called from inside one
    /// of its `write` or `read` closures.
    static func center(for writer: any DatabaseWriter) -> ObservationCenter {
        let id = ObjectIdentifier(writer)
        let (center, relayToInstall) = registry.withLock { registry -> (ObservationCenter, CommitRelay?) in
            if let registration = registry[id], registration.writer === writer {
                if let center = registration.center { return (center, nil) }
                let center = ObservationCenter(writer: writer)
                registry[id]?.center = center
                registration.relay.center.withLock { $0.center = center }
                return (center, nil)
            }
            // Forget writers that are gone, whose identifiers may be reused.
            registry = registry.filter { $0.value.writer != nil }
            let center = ObservationCenter(writer: writer)
            let relay = CommitRelay()
            relay.center.withLock { $0.center = center }
            registry[id] = Registration(writer: writer, center: center, relay: relay)
            return (center, relay)
        }
        if let relayToInstall {
            // The body cannot throw, so neither can the call.
            _ = try? writer.writeWithoutTransaction { db in
                db.addChangeObserver { changes in relayToInstall.deliver(changes) }
            }
        }
        return center
    }

    // MARK: Readers

    /// A reader's hold on a query; the query stops refetching on commits when the last goes.
    final class Lease: Sendable {
        let center: ObservationCenter
        let id: QueryPath

        init(center: ObservationCenter, id: QueryPath) {
            self.center = center
            self.id = id
        }

        deinit { center.release(id) }
    }

    /// The store and coalescer of `key`'s query, and a lease that keeps it refetching on commits.
    func attach<Value>(_ key: SharedReaderKey<Value>) -> (
        store: QueryStore<QueryState<Value?, Value>>, coalescer: RefetchCoalescer, lease: Lease
    ) {
        typealias Store = QueryStore<QueryState<Value?, Value>>
        // The synchronous lookup also tells the client the store is in use, for eviction.
        let cached = client.store(for: key.id, of: QueryState<Value?, Value>.self)
        let (store, coalescer, startMonitor) = state.withLock { state -> (Store, RefetchCoalescer, Bool) in
            let store: Store
            let coalescer: RefetchCoalescer
            if let entry = state.entries[key.id], let cached, entry.store === cached {
                store = cached
                coalescer = entry.coalescer
            } else {
                store = cached ?? client.store(for: DatabaseFetchQuery(key: key, writer: writer) { [weak self] id, region in
                    self?.record(region, for: id)
                })
                coalescer = RefetchCoalescer { [store] in
                    do {
                        _ = try await store.fetch()
                        return .success(())
                    } catch {
                        return .failure(error)
                    }
                }
                state.entries[key.id] = Entry(store: store, coalescer: coalescer)
            }
            state.entries[key.id]!.readerCount += 1
            state.readerCount += 1
            return (store, coalescer, watchesFile && state.monitor == nil)
        }
        if startMonitor { startMonitoring() }
        return (store, coalescer, Lease(center: self, id: key.id))
    }

    /// Returns once commits by other connections and processes are being watched for.
    func waitUntilWatching() async {
        guard watchesFile else { return }
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state in
                if state.isWatching || state.monitor == nil { return true }
                state.watchWaiters.append(waiter)
                return false
            }
            if ready { waiter.resume() }
        }
    }

    private func release(_ id: QueryPath) {
        let (monitor, waiters) = state.withLock { state -> (FileChangeMonitor?, [CheckedContinuation<Void, Never>]) in
            state.entries[id]?.readerCount -= 1
            state.readerCount -= 1
            guard state.readerCount == 0, let monitor = state.monitor else { return (nil, []) }
            state.monitor = nil
            state.isWatching = false
            defer { state.watchWaiters = [] }
            return (monitor, state.watchWaiters)
        }
        monitor?.stop()
        for waiter in waiters { waiter.resume() }
    }

    private func record(_ region: ObservedRegion, for id: QueryPath) {
        state.withLock { $0.entries[id]?.region = region }
    }

    /// How many fetches `key`'s query started; for tests.
    func fetchCount<Value>(for key: SharedReaderKey<Value>) -> Int {
        state.withLock { $0.entries[key.id]?.coalescer.startedCount ?? 0 }
    }

    // MARK: Changes

    /// Called on the writer's thread right after each commit: it only marks and schedules, so
    /// the writer never waits for a read.
    fileprivate func didCommit(_ changes: DatabaseChanges) {
        let (live, idle) = state.withLock { state -> ([RefetchCoalescer], [Entry]) in
            var live: [RefetchCoalescer] = []
            var idle: [Entry] = []
            for entry in state.entries.values where entry.region.isModified(by: changes) {
                if entry.readerCount > 0 { live.append(entry.coalescer) } else { idle.append(entry) }
            }
            return (live, idle)
        }
        for coalescer in live { coalescer.schedule() }
        for entry in idle { markStale(entry) }
    }

    /// Someone else may have committed: every query may have changed.
    private func didChangeElsewhere() {
        let (live, idle) = state.withLock { state -> ([RefetchCoalescer], [Entry]) in
            // Queries the client evicted and nobody reads are gone for good.
            state.entries = state.entries.filter { id, entry in
                entry.readerCount > 0 || client.opaqueStore(for: id) === entry.store
            }
            let live = state.entries.values.filter { $0.readerCount > 0 }.map(\.coalescer)
            return (live, state.entries.values.filter { $0.readerCount == 0 })
        }
        for coalescer in live { coalescer.schedule() }
        for entry in idle { markStale(entry) }
    }

    private func markStale(_ entry: Entry) {
        entry.store.invalidate(refetch: false)
        entry.coalescer.scheduleIfRunning()
    }

    private func startMonitoring() {
        let monitor = FileChangeMonitor(
            path: writer.path,
            onStart: { [weak self] in self?.checkDataVersion(isBaseline: true) },
            onChange: { [weak self] in self?.checkDataVersion(isBaseline: false) })
        let extra = state.withLock { state -> FileChangeMonitor? in
            guard state.monitor == nil, state.readerCount > 0 else { return monitor }
            state.monitor = monitor
            return nil
        }
        extra?.stop()
    }

    /// Reads `data_version` on the writer connection (never from inside the lock: the commit
    /// hook takes the lock on the writer's thread).
    private func checkDataVersion(isBaseline: Bool) {
        let version = try? writer.writeWithoutTransaction { db in try db.dataVersion }
        let (moved, waiters) = state.withLock { state -> (Bool, [CheckedContinuation<Void, Never>]) in
            var moved = false
            if let version {
                moved = state.dataVersion.map { $0 != version } ?? false
                state.dataVersion = version
            }
            guard isBaseline else { return (moved, []) }
            state.isWatching = true
            defer { state.watchWaiters = [] }
            return (moved, state.watchWaiters)
        }
        for waiter in waiters { waiter.resume() }
        if moved { didChangeElsewhere() }
    }
}

/// Forwards the writer's commits to its current center. The writer keeps the relay for its whole
/// life, while centers come and go with their readers.
private final class CommitRelay: Sendable {
    struct WeakCenter {
        weak var center: ObservationCenter?
    }

    let center = Mutex(WeakCenter())

    func deliver(_ changes: DatabaseChanges) {
        center.withLock { $0.center }?.didCommit(changes)
    }
}
