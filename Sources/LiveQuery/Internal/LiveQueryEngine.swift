import Dispatch
import Locking
import QueryCache

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Keeps the live values of one database current, whatever the database: its ``LiveQuerySource``
/// reads and reports changes, the engine decides what to refetch.
///
/// It owns the query cache: one record per query, holding the query's store (its value, for
/// readers to subscribe to), what it read, its readers and its place in the refetch rounds; and
/// the eviction of the records nobody reads, by ``SharedReaderCache``'s policy. It hears of
/// changes from its source, and refetches the queries whose read region a commit touched — only those with readers;
/// the others are marked stale and refetch when used again. A change the source cannot describe
/// (`didChangeElsewhere(failure:)`) refetches everything, and a failure it reports (the database
/// deleted or replaced) makes every query fail with it from then on.
///
/// A commit costs work in proportion to the queries that read the tables it changed: an index
/// from table to queries (``LiveQueryIndex``), kept as regions become known, finds them. The
/// source is told which tables the index holds, so a commit that matches none need not even reach
/// the engine.
///
/// Refetches run in rounds on a serial queue of the engine's: a round takes every query marked
/// since the previous one and fetches them all in one read of the source, then hands each store
/// its result. A burst of commits thus costs at most one round in flight and one queued, each
/// query is read once per round, and since rounds run one after another on newer and newer
/// snapshots, a newer value is never overtaken by an older one.
///
/// Generic over its source, rather than holding an `any LiveQuerySource`: the records' fetches
/// take the source's own connection type, and a round calls the source's `read` directly, with no
/// existential to open or connection to box on the way to every fetch.
package final class LiveQueryEngine<Source: LiveQuerySource>: LiveCache {
    package typealias Outcome = Result<Void, any Error>
    package typealias Completion = @Sendable (Outcome) -> Void

    /// Where the engine reads, and hears of changes.
    package let source: Source

    /// The result of one query in a round, to apply to its store once the read is over.
    private struct Fetched: Sendable {
        let apply: @Sendable () -> Void
        let outcome: Outcome
        let region: DatabaseRegion
    }

    /// One cached query.
    private struct Record {
        let store: any EvictableQueryStore
        /// Runs the query on a connection of the source.
        let run: @Sendable (Source.Connection) -> Fetched
        /// Reports an error raised before the query could run.
        let fail: @Sendable (any Error) -> Fetched
        var region: DatabaseRegion = .everything
        var readerCount = 0
        /// Listed in `pendingIDs`, for the next round.
        var isPending = false
        /// Being fetched by the running round.
        var isInFlight = false
        /// Marked stale since its last fetch, so that later commits need not mark it again.
        var isMarkedStale = false
        /// Called when the next round that fetches the query has applied its result.
        var waiters: [Completion] = []
        /// Called when the running round that fetches the query has applied its result.
        var joiners: [Completion] = []
        /// How many rounds fetched the query; for tests.
        var fetchCount = 0
    }

    private struct State {
        var records: [Int: Record] = [:]
        var idsByPath: [QueryPath: Int] = [:]
        var nextID = 0
        /// Which records the policy lets go, and when.
        var eviction = StoreEviction<Int>(policy: SharedReaderCache.evictionPolicy)
        /// What new stores start from; its clock drives eviction.
        var context: QueryContext
        var index = LiveQueryIndex()
        /// What the next round fetches.
        var pendingIDs: [Int] = []
        /// A round is queued or running; it runs again while anything is pending.
        var isRefreshing = false
        /// Counts changes, so a round can tell whether one slipped in while it read.
        var commitCount = 0
        var readerCount = 0
        var watch: Source.Watch?
        /// False once the source said nothing can change elsewhere, so that attaching a reader
        /// does not ask it again.
        var needsWatch = true
        /// Set when the database went away: every fetch fails with it from then on.
        var failure: (any Error)?
        /// What the source was last told to report.
        var selection = TableSelection()

        mutating func add(_ record: Record) -> Int {
            nextID += 1
            records[nextID] = record
            idsByPath[record.store.path] = nextID
            index.insert(nextID, record.region)
            return nextID
        }

        /// Evicts the records the policy lets go, but `kept`'s, and those in use: read, awaited,
        /// fetched, or subscribed to. Returns whether it evicted any.
        @discardableResult
        mutating func evict(now: Date, keeping kept: Int? = nil, scan: Bool = false) -> Bool {
            let records = records
            let evicted = eviction.evict(now: now, keeping: kept, scan: scan) { id in
                let record = records[id]!
                let status = record.store.evictionStatus
                let isInUse =
                    record.readerCount > 0 || !record.waiters.isEmpty || record.isPending || record.isInFlight
                return EvictionStatus(isInUse: isInUse || status.isInUse, unsubscribedSince: status.unsubscribedSince)
            }
            for id in evicted {
                guard let record = self.records.removeValue(forKey: id) else { continue }
                idsByPath.removeValue(forKey: record.store.path)
                index.remove(id, record.region)
            }
            return !evicted.isEmpty
        }

        /// Something `id` reads changed: fetch it in the next round if someone waits for it,
        /// else add its store to `stale`.
        mutating func changed(_ id: Int, stale: inout [any OpaqueQueryStore]) {
            guard let record = records[id] else { return }
            if record.readerCount > 0 || !record.waiters.isEmpty || record.isInFlight {
                pend(id)
            } else if !record.isMarkedStale {
                records[id]!.isMarkedStale = true
                stale.append(record.store)
            }
        }

        mutating func pend(_ id: Int) {
            guard let record = records[id], !record.isPending else { return }
            records[id]!.isPending = true
            pendingIDs.append(id)
        }

        /// Tells the source which changes to report, when the index changed that. The one call
        /// out under the lock, so that the source hears selections in the order they were made;
        /// the source only records them.
        mutating func select(in source: Source) {
            let tables = index.tables
            guard tables != selection else { return }
            source.select(tables)
            selection = tables
        }

        /// True when the caller must start a round.
        mutating func claimRound() -> Bool {
            guard !isRefreshing, !pendingIDs.isEmpty else { return false }
            isRefreshing = true
            return true
        }
    }

    private let state: Lock<State>
    private let refreshQueue = DispatchQueue(label: "LiveQuery.LiveQueryEngine.refresh")

    package init(source: Source) {
        self.source = source
        var context = QueryContext()
        // Stores are fed by the engine's rounds; they never fetch by themselves.
        context.maxRetries = 0
        context.queryFetchesOnSubscribe = false
        state = Lock(State(context: context))
        SharedReaderCache.register(self)
    }

    // MARK: Readers

    /// A reader's hold on a query: while one is held, commits refetch the query, and its record
    /// stays.
    package final class Lease: LiveLease {
        package let engine: LiveQueryEngine
        fileprivate let id: Int

        fileprivate init(engine: LiveQueryEngine, id: Int) {
            self.engine = engine
            self.id = id
        }

        deinit { engine.release(id) }

        package func refresh(fresh: Bool, completion: @escaping Completion) {
            engine.refresh(self, fresh: fresh, completion: completion)
        }

        package var fetchCount: Int { engine.state.withLock { $0.records[id]?.fetchCount ?? 0 } }
    }

    /// The store of the query at `path`, and a lease that keeps it refetching on commits.
    ///
    /// `query` makes the store when the cache has none (it only runs if something other than the
    /// engine makes the store fetch); the engine's rounds run `fetch`, which also says what the
    /// query read.
    package func attach<Value: Sendable, Query: QueryRequest>(
        _ path: QueryPath,
        query: @autoclosure () -> Query,
        fetch: @escaping @Sendable (Source.Connection) throws -> (Value, DatabaseRegion)
    ) -> (store: QueryStore<QueryState<Value?, Value>>, lease: Lease) where Query.State == QueryState<Value?, Value> {
        typealias Store = QueryStore<QueryState<Value?, Value>>
        let (store, id, startWatch) = state.withLock { state -> (Store, Int, Bool) in
            let now = state.context.queryClock.now()
            let id: Int
            let store: Store
            var isNew = false
            if let existing = state.idsByPath[path] {
                id = existing
                guard let typed = state.records[id]!.store as? Store else {
                    preconditionFailure("The query at \(path) holds another type of value than \(Value.self).")
                }
                store = typed
            } else {
                store = Store(
                    query: query(), initialState: QueryState(initialValue: nil), initialContext: state.context)
                id = state.add(Self.record(store: store, fetch: fetch))
                isNew = true
            }
            state.records[id]!.readerCount += 1
            state.readerCount += 1
            state.eviction.use(id, now: now)
            // The index changes only with a new query or an eviction.
            if state.evict(now: now, keeping: id) || isNew { state.select(in: source) }
            return (store, id, state.needsWatch && state.watch == nil)
        }
        if startWatch { startWatching() }
        return (store, Lease(engine: self, id: id))
    }

    private static func record<Value: Sendable>(
        store: QueryStore<QueryState<Value?, Value>>,
        fetch: @escaping @Sendable (Source.Connection) throws -> (Value, DatabaseRegion)
    ) -> Record {
        let fail: @Sendable (any Error) -> Fetched = { error in
            // A failed statement reported nothing: watch everything, so that the commit that
            // fixes the query (creating a missing table, say) brings the value in.
            Fetched(apply: { store.setResult(.failure(error)) }, outcome: .failure(error), region: .everything)
        }
        return Record(
            store: store,
            run: { connection in
                do {
                    let (value, region) = try fetch(connection)
                    return Fetched(apply: { store.setResult(.success(value)) }, outcome: .success(()), region: region)
                } catch {
                    return fail(error)
                }
            },
            fail: fail)
    }

    /// What `refresh` does once the state says how the lease's query gets fetched.
    private enum RefreshStep { case done, wait, startRound }

    /// Fetches the lease's query, and calls `completion` once the store holds the result.
    ///
    /// With `fresh`, the fetch is one of the next round, which starts after this call and so sees
    /// every commit made before. Otherwise a fetch already running is joined, and a store that is
    /// not stale (readers attached together all saw it stale; the first fetch may have answered
    /// them all) completes at once.
    func refresh(_ lease: Lease, fresh: Bool, completion: @escaping Completion) {
        let next = state.withLock { state -> RefreshStep in
            let record = state.records[lease.id]!
            if !fresh {
                if record.isInFlight {
                    state.records[lease.id]!.joiners.append(completion)
                    return .wait
                }
                if !record.store.isStale { return .done }
            }
            state.records[lease.id]!.waiters.append(completion)
            state.pend(lease.id)
            return state.claimRound() ? .startRound : .wait
        }
        switch next {
        case .done: completion(.success(()))
        case .wait: break
        case .startRound: scheduleRound()
        }
    }

    private func release(_ id: Int) {
        let watch = state.withLock { state -> Source.Watch? in
            // The store's idle time starts when the reader's subscription ends (its
            // `unsubscribedSince`), which eviction reads.
            state.records[id]!.readerCount -= 1
            state.readerCount -= 1
            guard state.readerCount == 0, let watch = state.watch else { return nil }
            state.watch = nil
            return watch
        }
        if let watch { source.stopWatching(watch) }
    }

    /// How many rounds fetched the query at `path`; for tests.
    func fetchCount(for path: QueryPath) -> Int {
        state.withLock { state in state.idsByPath[path].flatMap { state.records[$0]?.fetchCount } ?? 0 }
    }

    /// The eviction policy of the engine's cache: ``SharedReaderCache``'s, unless a test changes it.
    package var evictionPolicy: QueryEvictionPolicy {
        get { state.withLock { $0.eviction.policy } }
        set { state.withLock { $0.eviction.policy = newValue } }
    }

    /// The clock that eviction reads; for tests.
    var queryClock: QueryClock {
        get { state.withLock { $0.context.queryClock } }
        set { state.withLock { $0.context.queryClock = newValue } }
    }

    /// Evicts, now, the queries that the policy lets go.
    func evictExpired() {
        state.withLock { state in
            state.evict(now: state.context.queryClock.now(), scan: true)
            state.select(in: source)
        }
    }

    /// How many queries the engine keeps, each with its store.
    package var recordCount: Int { state.withLock { $0.records.count } }

    /// How many queries the index lists; for tests.
    var indexedQueryCount: Int { state.withLock { $0.index.count } }

    // MARK: Changes

    /// A commit the source saw, with what it changed. Called on the committing thread (the
    /// writer's, for SQLite) right after the commit: it only marks and schedules, so the commit
    /// never waits for a refetch.
    package func didCommit(_ changes: DatabaseChanges) {
        let (start, stale) = state.withLock { state -> (Bool, [any OpaqueQueryStore]) in
            state.commitCount &+= 1
            var stale: [any OpaqueQueryStore] = []
            for table in changes.changedTables {
                guard let ids = state.index.readersOfTable[table] else { continue }
                if state.index.scopesOfTable[table] != nil, let rows = changes.rowChanges(in: table) {
                    for id in state.index.affected(by: rows, in: table) { state.changed(id, stale: &stale) }
                } else {
                    for id in ids { state.changed(id, stale: &stale) }
                }
            }
            for id in state.index.readersOfEverything { state.changed(id, stale: &stale) }
            return (state.claimRound(), stale)
        }
        for store in stale { store.invalidate(refetch: false) }
        if start { scheduleRound() }
    }

    /// Something changed that the source cannot describe (another process committed, say): every
    /// query may have changed. With `failure`, the database itself went away (its file deleted or
    /// replaced): every fetch fails with it from now on.
    package func didChangeElsewhere(failure: (any Error)? = nil) {
        let (start, stale) = state.withLock { state -> (Bool, [any OpaqueQueryStore]) in
            state.commitCount &+= 1
            if let failure { state.failure = failure }
            var stale: [any OpaqueQueryStore] = []
            for id in Array(state.records.keys) { state.changed(id, stale: &stale) }
            return (state.claimRound(), stale)
        }
        for store in stale { store.invalidate(refetch: false) }
        if start { scheduleRound() }
    }

    // MARK: Rounds

    private func scheduleRound() {
        refreshQueue.async { self.runRounds() }
    }

    /// One query of a round: what to run, and who waits for its result.
    private struct RoundEntry {
        let id: Int
        let run: @Sendable (Source.Connection) -> Fetched
        let fail: @Sendable (any Error) -> Fetched
        let waiters: [Completion]
    }

    /// Runs rounds until nothing is pending. Only one runs at a time (`isRefreshing`).
    private func runRounds() {
        source.prepareRounds()
        while let (batch, commitCount, failure) = takeRound() {
            let results: [Fetched]
            if let failure {
                results = batch.map { $0.fail(failure) }
            } else {
                do {
                    results = try source.read { connection in batch.map { $0.run(connection) } }
                } catch {
                    results = batch.map { $0.fail(error) }
                }
            }
            index(results, of: batch, readSince: commitCount)
            for result in results { result.apply() }
            let completions = finish(batch, results)
            for (completion, outcome) in completions { completion(outcome) }
        }
    }

    /// Takes every pending query for a round, with the commit count it starts at and the
    /// database's failure if any; nil, ending the rounds, when nothing is pending.
    private func takeRound() -> (batch: [RoundEntry], commitCount: Int, failure: (any Error)?)? {
        state.withLock { state in
            var batch: [RoundEntry] = []
            batch.reserveCapacity(state.pendingIDs.count)
            for id in state.pendingIDs {
                guard let record = state.records[id] else { continue }
                batch.append(RoundEntry(id: id, run: record.run, fail: record.fail, waiters: record.waiters))
                state.records[id]!.waiters = []
                state.records[id]!.isPending = false
                state.records[id]!.isInFlight = true
                state.records[id]!.fetchCount += 1
            }
            state.pendingIDs.removeAll(keepingCapacity: true)
            guard !batch.isEmpty else {
                state.isRefreshing = false
                return nil
            }
            return (batch, state.commitCount, state.failure)
        }
    }

    /// Indexes what each query of the round read, before its value is published: a reader that
    /// sees the value may commit next, and that commit must be matched against the new region,
    /// not refetch a query whose region is still unknown.
    private func index(_ results: [Fetched], of batch: [RoundEntry], readSince commitCount: Int) {
        state.withLock { state in
            for (entry, result) in zip(batch, results) {
                guard let record = state.records[entry.id], record.region != result.region else { continue }
                state.index.remove(entry.id, record.region)
                state.index.insert(entry.id, result.region)
                state.records[entry.id]!.region = result.region
                // A commit made during the read was matched against the old region.
                if state.commitCount != commitCount { state.pend(entry.id) }
            }
            state.select(in: source)
        }
    }

    /// Ends the round's fetches, once their results are applied: returns who to tell of each
    /// outcome (the round's waiters, and those who joined the fetch meanwhile).
    private func finish(_ batch: [RoundEntry], _ results: [Fetched]) -> [(Completion, Outcome)] {
        state.withLock { state in
            var completions: [(Completion, Outcome)] = []
            for (entry, result) in zip(batch, results) {
                completions += entry.waiters.map { ($0, result.outcome) }
                guard let record = state.records[entry.id] else { continue }
                completions += record.joiners.map { ($0, result.outcome) }
                state.records[entry.id]!.joiners = []
                state.records[entry.id]!.isInFlight = false
                if case .success = result.outcome { state.records[entry.id]!.isMarkedStale = false }
            }
            return completions
        }
    }

    // MARK: Changes elsewhere

    private func startWatching() {
        guard let watch = source.startWatching() else {
            state.withLock { $0.needsWatch = false }
            return
        }
        let extra = state.withLock { state -> Source.Watch? in
            guard state.watch == nil, state.readerCount > 0 else { return watch }
            state.watch = watch
            return nil
        }
        if let extra { source.stopWatching(extra) }
    }
}
