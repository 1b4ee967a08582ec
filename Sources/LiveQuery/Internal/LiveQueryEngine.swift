import Dispatch
import Locking
import QueryEviction

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Keeps the live values of one database current, whatever the database: its ``LiveQuerySource``
/// reads and reports changes, the engine decides what to refetch.
///
/// It owns the query cache: one ``LiveRecord`` per query, holding its value, error and staleness
/// (which readers subscribe to), beside what the query read, its readers and its place in the
/// refetch rounds; and
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
/// since the previous one and fetches them all through the source (in one read, or on several
/// connections at once, as the source chooses), then hands each record
/// its result. A burst of commits thus costs at most one round in flight and one queued, each
/// query is read once per round, and since rounds run one after another on newer and newer
/// snapshots, a newer value is never overtaken by an older one.
///
/// Generic over its source, rather than holding an `any LiveQuerySource`, so that a round calls
/// the source's `read` directly. Its state, records and leases are not generic: a reader that
/// switches back to a cached query runs code that needs no type metadata of the source's.
package final class LiveQueryEngine<Source: LiveQuerySource>: LiveCache, LeaseOwner {
    package typealias Outcome = Result<Void, any Error>
    package typealias Completion = @Sendable (Outcome) -> Void

    /// Where the engine reads, and hears of changes.
    package let source: Source

    let state: Lock<LiveQueryState>
    private let refreshQueue = DispatchQueue(label: "LiveQuery.LiveQueryEngine.refresh")

    package init(source: Source) {
        self.source = source
        state = Lock(LiveQueryState(policy: SharedReaderCache.evictionPolicy))
        SharedReaderCache.register(self)
    }

    // MARK: Readers

    /// The record of the query at `path`, and a lease that keeps it refetching on commits.
    ///
    /// The engine's rounds run `fetch`, which also says what the query read.
    package func attach<Value: Sendable>(
        _ path: QueryPath,
        fetch: @escaping @Sendable (Source.Connection) throws -> (Value, DatabaseRegion)
    ) -> (record: LiveRecord, lease: LiveLease) {
        let (record, id, startWatch) = state.withLock { state -> (LiveRecord, Int, Bool) in
            let now = state.clock.now()
            let entry: LiveQueryEntry
            var isNew = false
            if let id = state.idsByPath[path] {
                entry = state.entries[id]!
                guard entry.record.valueType == Value.self else {
                    preconditionFailure("The query at \(path) holds another type of value than \(Value.self).")
                }
            } else {
                entry = LiveQueryEntry(path: path, record: LiveRecord(valueType: Value.self), run: Self.run(fetch))
                state.add(entry)
                isNew = true
            }
            let id = entry.id
            entry.readerCount += 1
            state.readerCount += 1
            state.eviction.use(id, now: now)
            // The index changes only with a new query or an eviction.
            if state.evict(now: now, keeping: id) || isNew { select(&state) }
            return (entry.record, id, state.needsWatch && state.watch == nil)
        }
        if startWatch { startWatching() }
        return (record, LiveLease(owner: self, id: id))
    }

    /// The query's fetch, on a connection of the source, its value boxed for the record.
    private static func run<Value: Sendable>(
        _ fetch: @escaping @Sendable (Source.Connection) throws -> (Value, DatabaseRegion)
    ) -> @Sendable (Any) -> LiveQueryFetched {
        { connection in
            do {
                // Rounds pass the source's own connection.
                let (value, region) = try fetch(connection as! Source.Connection)
                return LiveQueryFetched(result: .success(value), region: region)
            } catch {
                return .failure(error)
            }
        }
    }

    /// What `refresh` does once the state says how the lease's query gets fetched.
    private enum RefreshStep { case done, wait, startRound }

    /// Fetches the lease's query, and calls `completion` once the record holds the result.
    ///
    /// With `fresh`, the fetch is one of the next round, which starts after this call and so sees
    /// every commit made before. Otherwise a fetch already running is joined, and a record that is
    /// not stale (readers attached together all saw it stale; the first fetch may have answered
    /// them all) completes at once.
    func refresh(_ id: Int, fresh: Bool, completion: @escaping Completion) {
        let next = state.withLock { state -> RefreshStep in
            let entry = state.entries[id]!
            if !fresh {
                if entry.isInFlight {
                    entry.joiners.append(completion)
                    return .wait
                }
                if !entry.record.isStale { return .done }
            }
            entry.waiters.append(completion)
            state.pend(id)
            return state.claimRound() ? .startRound : .wait
        }
        switch next {
        case .done: completion(.success(()))
        case .wait: break
        case .startRound: scheduleRound()
        }
    }

    func release(_ id: Int) {
        let watch = state.withLock { state -> (any Sendable)? in
            let entry = state.entries[id]!
            entry.readerCount -= 1
            // The query's idle time, which eviction reads, starts when its last reader leaves.
            if entry.readerCount == 0 { entry.releasedAt = state.clock.now() }
            state.readerCount -= 1
            guard state.readerCount == 0, let watch = state.watch else { return nil }
            state.watch = nil
            return watch
        }
        // Only `startWatching` stores a watch, one of the source's.
        if let watch { source.stopWatching(watch as! Source.Watch) }
    }

    /// The eviction policy of the engine's cache: ``SharedReaderCache``'s, unless a test changes it.
    package var evictionPolicy: QueryEvictionPolicy {
        get { state.withLock { $0.eviction.policy } }
        set { state.withLock { $0.eviction.policy = newValue } }
    }

    /// How many queries the engine keeps, each with its record.
    package var recordCount: Int { state.withLock { $0.entries.count } }

    /// Tells the source which changes to report, when the index changed that. The one call out
    /// under the lock, so that the source hears selections in the order they were made; the
    /// source only records them.
    func select(_ state: inout LiveQueryState) {
        let tables = state.index.tables
        guard tables != state.selection else { return }
        source.select(tables)
        state.selection = tables
    }

    // MARK: Changes

    /// A commit the source saw, with what it changed. Called on the committing thread (the
    /// writer's, for SQLite) right after the commit: it only marks and schedules, so the commit
    /// never waits for a refetch.
    package func didCommit(_ changes: DatabaseChanges) {
        let start = state.withLock { state -> Bool in
            state.commitCount &+= 1
            for table in changes.changedTables {
                guard let ids = state.index.readersOfTable[table] else { continue }
                if state.index.scopesOfTable[table] != nil, let rows = changes.rowChanges(in: table) {
                    for id in state.index.affected(by: rows, in: table) { state.changed(id) }
                } else {
                    for id in ids { state.changed(id) }
                }
            }
            for id in state.index.readersOfEverything { state.changed(id) }
            return state.claimRound()
        }
        if start { scheduleRound() }
    }

    /// Something changed that the source cannot describe (another process committed, say): every
    /// query may have changed. With `failure`, the database itself went away (its file deleted or
    /// replaced): every fetch fails with it from now on.
    package func didChangeElsewhere(failure: (any Error)? = nil) {
        let start = state.withLock { state -> Bool in
            state.commitCount &+= 1
            if let failure { state.failure = failure }
            for id in Array(state.entries.keys) { state.changed(id) }
            return state.claimRound()
        }
        if start { scheduleRound() }
    }

    /// The failure that `didChangeElsewhere(failure:)` reported is over (the source can follow
    /// the database's changes again): fetches run again, and every query refetches, since any
    /// may have changed meanwhile.
    package func didRecover() {
        let start = state.withLock { state -> Bool in
            state.commitCount &+= 1
            state.failure = nil
            for id in Array(state.entries.keys) { state.changed(id) }
            return state.claimRound()
        }
        if start { scheduleRound() }
    }

    // MARK: Rounds

    private func scheduleRound() {
        refreshQueue.async { self.runRounds() }
    }

    /// Runs rounds until nothing is pending. Only one runs at a time (`isRefreshing`).
    private func runRounds() {
        source.prepareRounds()
        while let (batch, commitCount, failure) = takeRound() {
            let results: [LiveQueryFetched]
            if let failure {
                results = batch.map { _ in .failure(failure) }
            } else {
                do {
                    results = try source.readEach(batch.count) { connection, index in batch[index].run(connection) }
                } catch {
                    results = batch.map { _ in .failure(error) }
                }
            }
            index(results, of: batch, readSince: commitCount)
            for (entry, result) in zip(batch, results) { entry.record.apply(result.result) }
            for (completion, outcome) in finish(batch, results) { completion(outcome) }
            if failure == nil { retry(batch, results) }
        }
    }

    /// Fetches again, after the source's delay, the queries of the round whose fetch failed for
    /// a moment; the delay grows while retries keep failing, and starts over after a round
    /// without such a failure.
    private func retry(_ batch: [LiveQueryRoundEntry], _ results: [LiveQueryFetched]) {
        let delay: Duration? = state.withLock { state in
            var delay: Duration?
            for (entry, result) in zip(batch, results) {
                guard case .failure(let error) = result.result,
                    let wait = source.retryDelay(after: error, attempt: state.retryAttempt)
                else { continue }
                state.retryIDs.insert(entry.id)
                delay = min(delay ?? wait, wait)
            }
            guard let delay else {
                if state.retryIDs.isEmpty { state.retryAttempt = 0 }
                return nil
            }
            guard !state.isRetryScheduled else { return nil }
            state.isRetryScheduled = true
            state.retryAttempt += 1
            return delay
        }
        guard let delay else { return }
        let nanoseconds = delay.components.seconds * 1_000_000_000 + delay.components.attoseconds / 1_000_000_000
        refreshQueue.asyncAfter(deadline: .now() + .nanoseconds(Int(nanoseconds))) { [weak self] in
            guard let self else { return }
            let start = state.withLock { state -> Bool in
                state.isRetryScheduled = false
                for id in state.retryIDs { state.changed(id) }
                state.retryIDs = []
                return state.claimRound()
            }
            if start { runRounds() }
        }
    }

    /// Takes every pending query for a round, with the commit count it starts at and the
    /// database's failure if any; nil, ending the rounds, when nothing is pending.
    private func takeRound() -> (batch: [LiveQueryRoundEntry], commitCount: Int, failure: (any Error)?)? {
        state.withLock { state in
            var batch: [LiveQueryRoundEntry] = []
            batch.reserveCapacity(state.pendingIDs.count)
            for id in state.pendingIDs {
                guard let entry = state.entries[id] else { continue }
                batch.append(LiveQueryRoundEntry(id: id, record: entry.record, run: entry.run, waiters: entry.waiters))
                entry.waiters = []
                entry.isPending = false
                entry.isInFlight = true
                entry.record.countFetch()
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
    private func index(_ results: [LiveQueryFetched], of batch: [LiveQueryRoundEntry], readSince commitCount: Int) {
        state.withLock { state in
            for (entry, result) in zip(batch, results) {
                guard let current = state.entries[entry.id], current.region != result.region else { continue }
                state.index.remove(entry.id, current.region)
                state.index.insert(entry.id, result.region)
                current.region = result.region
                // A commit made during the read was matched against the old region.
                if state.commitCount != commitCount { state.pend(entry.id) }
            }
            select(&state)
        }
    }

    /// Ends the round's fetches, once their results are applied: returns who to tell of each
    /// outcome (the round's waiters, and those who joined the fetch meanwhile).
    private func finish(_ batch: [LiveQueryRoundEntry], _ results: [LiveQueryFetched]) -> [(Completion, Outcome)] {
        state.withLock { state in
            var completions: [(Completion, Outcome)] = []
            for (entry, result) in zip(batch, results) {
                let outcome = result.outcome
                completions += entry.waiters.map { ($0, outcome) }
                guard let current = state.entries[entry.id] else { continue }
                completions += current.joiners.map { ($0, outcome) }
                current.joiners = []
                current.isInFlight = false
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

/// A reader's hold on a query of a live-query engine, whatever its source: while one is held,
/// commits refetch the query, and its record stays.
package final class LiveLease: Sendable {
    private let owner: any LeaseOwner
    private let id: Int

    fileprivate init(owner: any LeaseOwner, id: Int) {
        self.owner = owner
        self.id = id
    }

    deinit { owner.release(id) }

    /// Fetches the query, and calls `completion` once its record holds the result: with `fresh`,
    /// in a read that starts after this call; otherwise joining a fetch under way, or at once
    /// when the record is not stale.
    package func refresh(fresh: Bool, completion: @escaping @Sendable (Result<Void, any Error>) -> Void) {
        owner.refresh(id, fresh: fresh, completion: completion)
    }

    /// ``refresh(fresh:completion:)``, awaited.
    func refresh(fresh: Bool) async -> Result<Void, any Error> {
        await withCheckedContinuation { continuation in
            refresh(fresh: fresh) { continuation.resume(returning: $0) }
        }
    }
}

/// The engine, as its leases see it: an existential, so that a lease is one type whatever the
/// engine's source.
protocol LeaseOwner: AnyObject, Sendable {
    func release(_ id: Int)
    func refresh(_ id: Int, fresh: Bool, completion: @escaping @Sendable (Result<Void, any Error>) -> Void)
}

/// The result of one query in a round, to apply to its record once the read is over.
struct LiveQueryFetched: Sendable {
    let result: Result<any Sendable, any Error>
    let region: DatabaseRegion

    /// A failed statement reported nothing: the query watches everything, so that the commit that
    /// fixes it (creating a missing table, say) brings the value in.
    static func failure(_ error: any Error) -> LiveQueryFetched {
        LiveQueryFetched(result: .failure(error), region: .everything)
    }

    var outcome: Result<Void, any Error> { result.map { _ in () } }
}

/// One query of a round: what to run, and who waits for its result.
struct LiveQueryRoundEntry: Sendable {
    let id: Int
    let record: LiveRecord
    let run: @Sendable (Any) -> LiveQueryFetched
    let waiters: [@Sendable (Result<Void, any Error>) -> Void]
}

/// One cached query, as the engine keeps it: a class, so that the engine updates it in place
/// rather than copying it in and out of its dictionary. Only read and changed under the engine's
/// lock.
final class LiveQueryEntry {
    /// Its key in the engine's state.
    var id = 0
    let path: QueryPath
    /// Its value, error and staleness, which readers subscribe to.
    let record: LiveRecord
    /// Runs the query on a connection of the engine's source.
    let run: @Sendable (Any) -> LiveQueryFetched
    var region: DatabaseRegion = .everything
    var readerCount = 0
    /// When the last reader left, for eviction.
    var releasedAt: Date?
    /// Listed in `pendingIDs`, for the next round.
    var isPending = false
    /// Being fetched by the running round.
    var isInFlight = false
    /// Called when the next round that fetches the query has applied its result.
    var waiters: [@Sendable (Result<Void, any Error>) -> Void] = []
    /// Called when the running round that fetches the query has applied its result.
    var joiners: [@Sendable (Result<Void, any Error>) -> Void] = []

    init(path: QueryPath, record: LiveRecord, run: @escaping @Sendable (Any) -> LiveQueryFetched) {
        self.path = path
        self.record = record
        self.run = run
    }
}

/// An engine's state, the same type whatever its source.
struct LiveQueryState {
    var entries: [Int: LiveQueryEntry] = [:]
    var idsByPath: [QueryPath: Int] = [:]
    var nextID = 0
    /// Which records the policy lets go, and when.
    var eviction: StoreEviction<Int>
    /// The clock eviction reads.
    var clock: any QueryClock = SystemTimeQueryClock()
    var index = LiveQueryIndex()
    /// What the next round fetches.
    var pendingIDs: [Int] = []
    /// A round is queued or running; it runs again while anything is pending.
    var isRefreshing = false
    /// Counts changes, so a round can tell whether one slipped in while it read.
    var commitCount = 0
    var readerCount = 0
    /// The source's watch, while anyone reads.
    var watch: (any Sendable)?
    /// False once the source said nothing can change elsewhere, so that attaching a reader
    /// does not ask it again.
    var needsWatch = true
    /// Set when the database went away: every fetch fails with it from then on.
    var failure: (any Error)?
    /// The queries to fetch again once the source's delay after their failure has passed, whether
    /// that fetch is scheduled, and how many retries in a row were scheduled.
    var retryIDs: Set<Int> = []
    var isRetryScheduled = false
    var retryAttempt = 0
    /// What the source was last told to report.
    var selection = TableSelection()

    init(policy: QueryEvictionPolicy) {
        eviction = StoreEviction(policy: policy)
    }

    mutating func add(_ entry: LiveQueryEntry) {
        nextID += 1
        entry.id = nextID
        entries[nextID] = entry
        idsByPath[entry.path] = nextID
        index.insert(nextID, entry.region)
    }

    /// Evicts the records the policy lets go, but `kept`'s, and those in use: read, awaited,
    /// fetched, or subscribed to. Returns whether it evicted any.
    @discardableResult
    mutating func evict(now: Date, keeping kept: Int? = nil, scan: Bool = false) -> Bool {
        let entries = entries
        let evicted = eviction.evict(now: now, keeping: kept, scan: scan) { id in
            let entry = entries[id]!
            let isInUse =
                entry.readerCount > 0 || !entry.waiters.isEmpty || entry.isPending || entry.isInFlight
                || entry.record.subscriberCount > 0
            return EvictionStatus(isInUse: isInUse, unsubscribedSince: entry.releasedAt)
        }
        for id in evicted {
            guard let entry = self.entries.removeValue(forKey: id) else { continue }
            idsByPath.removeValue(forKey: entry.path)
            index.remove(id, entry.region)
        }
        return !evicted.isEmpty
    }

    /// Something `id` reads changed: fetch it in the next round if someone waits for it, else
    /// mark its record stale, to fetch when it is used again.
    mutating func changed(_ id: Int) {
        guard let entry = entries[id] else { return }
        if entry.readerCount > 0 || !entry.waiters.isEmpty || entry.isInFlight {
            pend(id)
        } else {
            entry.record.markStale()
        }
    }

    mutating func pend(_ id: Int) {
        guard let entry = entries[id], !entry.isPending else { return }
        entry.isPending = true
        pendingIDs.append(id)
    }

    /// True when the caller must start a round.
    mutating func claimRound() -> Bool {
        guard !isRefreshing, !pendingIDs.isEmpty else { return false }
        isRefreshing = true
        return true
    }
}
