import Dispatch
import Locking
import QueryCache

/// Keeps the live values of one database current.
///
/// One center per database: it owns the query cache (a `QueryClient`, one store per query), hears
/// the commits of the database's writer connection, and refetches the queries whose read region
/// a commit touched — only those with readers; the others are marked stale and refetch when
/// used again. Commits by other connections and processes are noticed through
/// `PRAGMA data_version`, checked when the file changes; a change of the schema among them makes
/// the read connections reload theirs, and a file deleted or replaced makes every query fail
/// with a ``SharingSQLiteError`` that says so.
///
/// A commit costs work in proportion to the queries that read the tables it changed: an index
/// from table to queries, kept as regions become known, finds them. The writer connection is
/// told which tables the index holds (`ObservedTables`), so a commit that matches none does not
/// even reach the center.
///
/// Refetches run in rounds on a serial queue of the center's: a round takes every query marked
/// since the previous one and fetches them all in one read (on a reader connection of a pool,
/// so writers never wait for it), then hands each store its result. A burst of commits thus
/// costs at most one round in flight and one queued, each query is read once per round, and
/// since rounds run one after another on newer and newer snapshots, a newer value is never
/// overtaken by an older one.
final class ObservationCenter: Sendable {
    typealias Outcome = Result<Void, any Error>
    typealias Completion = @Sendable (Outcome) -> Void

    let writer: any DatabaseWriter
    let client: QueryClient

    /// The result of one query in a round, to apply to its store once the read is over.
    private struct Fetched: Sendable {
        let apply: @Sendable () -> Void
        let outcome: Outcome
        let region: ObservedRegion
    }

    /// One cached query.
    private struct Record {
        let store: any OpaqueQueryStore
        /// Runs the query on a read connection.
        let run: @Sendable (Database) -> Fetched
        /// Reports an error raised before the query could run.
        let fail: @Sendable (any Error) -> Fetched
        var region: ObservedRegion = .everything
        var readerCount = 0
        /// Listed in `pendingIDs`, for the next round.
        var isPending = false
        /// Being fetched by the running round.
        var isInFlight = false
        /// Marked stale since its last fetch, so that later commits need not mark it again.
        var isMarkedStale = false
        /// The client evicted the store: the record goes when its last reader does.
        var isEvicted = false
        /// Called when the next round that fetches the query has applied its result.
        var waiters: [Completion] = []
        /// Called when the running round that fetches the query has applied its result.
        var joiners: [Completion] = []
        /// How many rounds fetched the query; for tests.
        var fetchCount = 0
    }

    private struct State {
        var records: [Int: Record] = [:]
        /// Store → its record, so that finding a record costs no hashing of its query's path.
        var idsByStore: [ObjectIdentifier: Int] = [:]
        var nextID = 0
        /// Table (lowercased) → the records whose region reads it.
        var readersOfTable: [String: Set<Int>] = [:]
        /// The records whose region is unknown: every commit may change them.
        var readersOfEverything: Set<Int> = []
        /// Table → the records that read part of it, with that part.
        var scopesOfTable: [String: [Int: RowScope]] = [:]
        /// Table → the records that read it whole: those of `readersOfTable` not in
        /// `scopesOfTable`, kept apart so that a commit finds them without testing the others.
        var wholeReadersOfTable: [String: Set<Int>] = [:]
        /// Table → column → value → the scoped records whose filter requires that value there:
        /// a changed row finds them without testing the others.
        var readersOfValue: [String: [Int: [SQLiteValue: Set<Int>]]] = [:]
        /// Table → the scoped records not in `readersOfValue`, tested for every changed row.
        var unindexedScopes: [String: Set<Int>] = [:]
        /// What the next round fetches.
        var pendingIDs: [Int] = []
        /// A round is queued or running; it runs again while anything is pending.
        var isRefreshing = false
        /// Counts commits, so a round can tell whether one slipped in while it read.
        var commitCount = 0
        var readerCount = 0
        var monitor: FileChangeMonitor?
        /// Set when the file was deleted or replaced: every fetch fails with it from then on.
        var fileError: SharingSQLiteError?
        /// Bumped when another process changed the schema, so that each read connection forgets
        /// the schema it knew (see `refreshSchema`).
        var schemaGeneration = 0
        /// What the writer connection was last told to deliver.
        var selection: (tables: Set<String>, all: Bool, rowTables: Set<String>, updatesOnly: Set<String>) = (
            [], false, [], []
        )

        mutating func add(_ record: Record) -> Int {
            nextID += 1
            records[nextID] = record
            idsByStore[ObjectIdentifier(record.store)] = nextID
            readersOfEverything.insert(nextID)
            return nextID
        }

        mutating func remove(_ id: Int) {
            guard let record = records.removeValue(forKey: id) else { return }
            idsByStore.removeValue(forKey: ObjectIdentifier(record.store))
            unindex(id, record.region)
        }

        mutating func unindex(_ id: Int, _ region: ObservedRegion) {
            switch region {
            case .everything:
                readersOfEverything.remove(id)
            case .region(let region):
                for table in region.tables.keys {
                    readersOfTable[table]?.remove(id)
                    if readersOfTable[table]?.isEmpty == true { readersOfTable.removeValue(forKey: table) }
                    guard let scope = scopesOfTable[table]?.removeValue(forKey: id) else {
                        wholeReadersOfTable[table]?.remove(id)
                        if wholeReadersOfTable[table]?.isEmpty == true {
                            wholeReadersOfTable.removeValue(forKey: table)
                        }
                        continue
                    }
                    if scopesOfTable[table]?.isEmpty == true { scopesOfTable.removeValue(forKey: table) }
                    if let (column, values) = Self.equalityKeys(of: scope) {
                        for value in values {
                            readersOfValue[table]?[column]?[value]?.remove(id)
                            if readersOfValue[table]?[column]?[value]?.isEmpty == true {
                                readersOfValue[table]?[column]?.removeValue(forKey: value)
                            }
                        }
                        if readersOfValue[table]?[column]?.isEmpty == true {
                            readersOfValue[table]?.removeValue(forKey: column)
                        }
                        if readersOfValue[table]?.isEmpty == true { readersOfValue.removeValue(forKey: table) }
                    } else {
                        unindexedScopes[table]?.remove(id)
                        if unindexedScopes[table]?.isEmpty == true { unindexedScopes.removeValue(forKey: table) }
                    }
                }
            }
        }

        mutating func index(_ id: Int, _ region: ObservedRegion) {
            switch region {
            case .everything:
                readersOfEverything.insert(id)
            case .region(let region):
                for table in region.tables.keys {
                    readersOfTable[table, default: []].insert(id)
                    guard let scope = region.rowScopes[table] else {
                        wholeReadersOfTable[table, default: []].insert(id)
                        continue
                    }
                    scopesOfTable[table, default: [:]][id] = scope
                    if let (column, values) = Self.equalityKeys(of: scope) {
                        for value in values {
                            readersOfValue[table, default: [:]][column, default: [:]][value, default: []].insert(id)
                        }
                    } else {
                        unindexedScopes[table, default: []].insert(id)
                    }
                }
            }
        }

        /// The column and values a scope's one filter requires, if it has one.
        static func equalityKeys(of scope: RowScope) -> (column: Int, values: [SQLiteValue])? {
            guard let filters = scope.filters, filters.count == 1 else { return nil }
            return filters[0].equalityKeys
        }

        /// The records reading `table` that the changed `rows` may affect. The work grows with
        /// the rows and the readers they may match, not with the readers of the table.
        func affected(by rows: [DatabaseChanges.RowChange], in table: String) -> Set<Int> {
            let scopes = scopesOfTable[table] ?? [:]
            var affected = wholeReadersOfTable[table] ?? []
            let indexed = readersOfValue[table] ?? [:]
            let unindexed = unindexedScopes[table] ?? []
            func test(_ id: Int, _ row: DatabaseChanges.RowChange) {
                guard !affected.contains(id), let scope = scopes[id] else { return }
                if scope.isAffected(old: row.old, new: row.new) { affected.insert(id) }
            }
            for row in rows {
                for (column, readers) in indexed {
                    for values in [row.old, row.new] {
                        guard let values else { continue }
                        // A row of another shape than the one indexed: every reader tests it.
                        guard column < values.count else {
                            for set in readers.values { for id in set { test(id, row) } }
                            continue
                        }
                        if let ids = readers[RowFilter.indexKey(values[column])] { for id in ids { test(id, row) } }
                    }
                }
                for id in unindexed { test(id, row) }
            }
            return affected
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

        /// Tells the writer connection which commits to deliver, when the index changed that.
        mutating func select(in observed: ObservedTables) {
            let tables = Set(readersOfTable.keys)
            let all = !readersOfEverything.isEmpty
            let rowTables = Set(scopesOfTable.keys)
            // Where no reader filters rows, only an update can skip a reader (by its columns).
            let updatesOnly = Set(scopesOfTable.filter { $0.value.values.allSatisfy { $0.filters == nil } }.keys)
            if rowTables != selection.rowTables || updatesOnly != selection.updatesOnly {
                selection.rowTables = rowTables
                selection.updatesOnly = updatesOnly
                observed.updateRowTables(rowTables, updatesOnly: updatesOnly)
            }
            guard tables != selection.tables || all != selection.all else { return }
            selection.tables = tables
            selection.all = all
            observed.update(tables, all: all)
        }

        /// True when the caller must start a round.
        mutating func claimRound() -> Bool {
            guard !isRefreshing, !pendingIDs.isEmpty else { return false }
            isRefreshing = true
            return true
        }
    }

    private let state = Lock(State())
    /// The writer's `data_version` and `schema_version` when last read; `data_version` only
    /// moves for others' commits. Written on `versionQueue` only.
    private let versions = Lock<(data: Int64, schema: Int64)?>(nil)
    /// The schema generation each read connection last refreshed its schema for.
    private let schemaGenerations = Lock<[ObjectIdentifier: Int]>([:])
    private let watchesFile: Bool
    private let refreshQueue = DispatchQueue(label: "SharingSQLite.ObservationCenter.refresh")
    /// Where `data_version` is checked, one check at a time, so that readings are stored in
    /// order. Not `refreshQueue`: a check waits for the writer, which a pool's rounds need not.
    private let versionQueue = DispatchQueue(label: "SharingSQLite.ObservationCenter.dataVersion")
    /// Forwards the writer's commits to the center, once installed on the writer connection.
    private let relay: CommitRelay
    /// The tables whose commits the writer delivers to the center: those of the index.
    private var observedTables: ObservedTables { relay.tables }

    private init(writer: any DatabaseWriter, relay: CommitRelay) {
        self.writer = writer
        self.relay = relay
        var context = QueryContext()
        // Stores are fed by the center's rounds; they never fetch by themselves.
        context.maxRetries = 0
        context.queryFetchesOnSubscribe = false
        client = QueryClient(defaultContext: context, evictionPolicy: SharedReaderCache.evictionPolicy)
        let path = writer.path
        watchesFile =
            !(path.isEmpty || path == ":memory:" || path.hasPrefix("file::memory:") || path.contains("mode=memory"))
        client.evictionHandler = { [weak self] stores in self?.didEvict(stores) }
    }

    // MARK: Finding the center of a database

    /// One per live writer. The hook on the writer is installed once and outlives centers: a
    /// center goes with its last reader, and a later one takes over the same relay.
    private struct Registration {
        weak var writer: (any DatabaseWriter)?
        weak var center: ObservationCenter?
        let relay: CommitRelay
    }

    private static let registry = Lock<[ObjectIdentifier: Registration]>([:])

    /// The center of `writer`, created on first use.
    ///
    /// It never waits for the writer, so it may be called from anywhere, even from inside one of
    /// the writer's `read` or `write` closures: the commit hook is installed by the center's first
    /// round, on the center's own queue, before that round reads.
    static func center(for writer: any DatabaseWriter) -> ObservationCenter {
        let id = ObjectIdentifier(writer)
        return registry.withLock { registry -> ObservationCenter in
            if let registration = registry[id], registration.writer === writer {
                if let center = registration.center { return center }
                let center = ObservationCenter(writer: writer, relay: registration.relay)
                registry[id]?.center = center
                registration.relay.center.withLock { $0.center = center }
                return center
            }
            // Forget writers that are gone, whose identifiers may be reused.
            registry = registry.filter { $0.value.writer != nil }
            let relay = CommitRelay()
            let center = ObservationCenter(writer: writer, relay: relay)
            relay.center.withLock { $0.center = center }
            registry[id] = Registration(writer: writer, center: center, relay: relay)
            return center
        }
    }

    /// The center of `writer` if it has one now.
    static func existingCenter(for writer: any DatabaseWriter) -> ObservationCenter? {
        registry.withLock { registry in
            registry[ObjectIdentifier(writer)].flatMap { $0.writer === writer ? $0.center : nil }
        }
    }

    /// Every live center.
    static var centers: [ObservationCenter] {
        registry.withLock { $0.values.compactMap(\.center) }
    }

    // MARK: Readers

    /// A reader's hold on a query: while one is held, commits refetch the query, and its record
    /// stays.
    final class Lease: Sendable {
        let center: ObservationCenter
        fileprivate let id: Int

        fileprivate init(center: ObservationCenter, id: Int) {
            self.center = center
            self.id = id
        }

        deinit { center.release(id) }
    }

    /// The store of `key`'s query, and a lease that keeps it refetching on commits.
    func attach<Value>(_ key: SharedReaderKey<Value>) -> (store: QueryStore<QueryState<Value?, Value>>, lease: Lease) {
        // Outside the lock: a lookup may evict stores, and the eviction handler takes the lock.
        // The lookup also tells the client the store is in use.
        let store =
            client.store(for: key.id, of: QueryState<Value?, Value>.self)
            ?? client.store(for: DatabaseFetchQuery(key: key, writer: writer))
        let (id, startMonitor) = state.withLock { state -> (Int, Bool) in
            let id: Int
            if let existing = state.idsByStore[ObjectIdentifier(store)] {
                id = existing
            } else {
                // A new query, or one whose store was evicted (the record of the old store goes
                // with its eviction).
                id = state.add(Self.record(for: key, store: store))
                state.select(in: observedTables)
            }
            state.records[id]!.readerCount += 1
            state.readerCount += 1
            return (id, watchesFile && state.monitor == nil)
        }
        if startMonitor { startMonitoring() }
        return (store, Lease(center: self, id: id))
    }

    private static func record<Value>(for key: SharedReaderKey<Value>, store: QueryStore<QueryState<Value?, Value>>)
        -> Record
    {
        let fail: @Sendable (any Error) -> Fetched = { error in
            // A failed statement reported nothing: watch everything, so that the commit that
            // fixes the query (creating a missing table, say) brings the value in.
            Fetched(apply: { store.setResult(.failure(error)) }, outcome: .failure(error), region: .everything)
        }
        return Record(
            store: store,
            run: { db in
                do {
                    let (value, region) = try key.fetch(db)
                    return Fetched(apply: { store.setResult(.success(value)) }, outcome: .success(()), region: region)
                } catch {
                    return fail(error)
                }
            },
            fail: fail)
    }

    /// Fetches the lease's query, and calls `completion` once the store holds the result.
    ///
    /// With `fresh`, the fetch is one of the next round, which starts after this call and so sees
    /// every commit made before. Otherwise a fetch already running is joined, and a store that is
    /// not stale (readers attached together all saw it stale; the first fetch may have answered
    /// them all) completes at once.
    func refresh(_ lease: Lease, fresh: Bool, completion: @escaping Completion) {
        enum Next { case done, wait, startRound }
        let next = state.withLock { state -> Next in
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

    /// Fetches the lease's query (see ``refresh(_:fresh:completion:)``), and returns once the
    /// store holds the result.
    func refresh(_ lease: Lease, fresh: Bool) async -> Outcome {
        await withCheckedContinuation { continuation in
            refresh(lease, fresh: fresh) { continuation.resume(returning: $0) }
        }
    }

    private func release(_ id: Int) {
        let monitor = state.withLock { state -> FileChangeMonitor? in
            state.records[id]!.readerCount -= 1
            state.readerCount -= 1
            if let record = state.records[id], record.readerCount == 0, record.isEvicted, record.waiters.isEmpty {
                state.remove(id)
                state.select(in: observedTables)
            }
            guard state.readerCount == 0, let monitor = state.monitor else { return nil }
            state.monitor = nil
            return monitor
        }
        monitor?.stop()
    }

    private func didEvict(_ stores: [any OpaqueQueryStore]) {
        state.withLock { state in
            for store in stores {
                guard let id = state.idsByStore[ObjectIdentifier(store)], let record = state.records[id] else {
                    continue
                }
                if record.readerCount == 0 && record.waiters.isEmpty && !record.isInFlight {
                    state.remove(id)
                } else {
                    state.records[id]!.isEvicted = true
                }
            }
            state.select(in: observedTables)
        }
    }

    /// How many rounds fetched `key`'s query; for tests.
    func fetchCount<Value>(for key: SharedReaderKey<Value>) -> Int {
        guard let store = client.opaqueStore(for: key.id) else { return 0 }
        return state.withLock { state in
            state.idsByStore[ObjectIdentifier(store)].flatMap { state.records[$0]?.fetchCount } ?? 0
        }
    }

    /// How many queries the center keeps; for tests. It follows the client's store count.
    var recordCount: Int { state.withLock { $0.records.count } }

    /// How many queries the commit index lists; for tests.
    var indexedQueryCount: Int {
        state.withLock { state in state.readersOfTable.values.reduce(state.readersOfEverything) { $0.union($1) }.count }
    }

    // MARK: Changes

    /// Called on the writer's thread right after each commit: it only marks and schedules, so
    /// the commit never waits for a refetch. (A `DatabaseQueue` runs the refetch on its one
    /// connection, so its next write may wait for a round; a pool's rounds use reader connections.)
    fileprivate func didCommit(_ changes: DatabaseChanges) {
        let (start, stale) = state.withLock { state -> (Bool, [any OpaqueQueryStore]) in
            state.commitCount &+= 1
            var stale: [any OpaqueQueryStore] = []
            for table in changes.changedTables {
                guard let ids = state.readersOfTable[table] else { continue }
                if state.scopesOfTable[table] != nil, let rows = changes.rowChanges(in: table) {
                    for id in state.affected(by: rows, in: table) { state.changed(id, stale: &stale) }
                } else {
                    for id in ids { state.changed(id, stale: &stale) }
                }
            }
            for id in state.readersOfEverything { state.changed(id, stale: &stale) }
            return (state.claimRound(), stale)
        }
        for store in stale { store.invalidate(refetch: false) }
        if start { scheduleRound() }
    }

    /// Someone else may have committed, changing the schema or not, or the file itself was
    /// deleted or replaced: every query may have changed.
    private func didChangeElsewhere(schema: Bool = false, fileError: SharingSQLiteError? = nil) {
        let (start, stale) = state.withLock { state -> (Bool, [any OpaqueQueryStore]) in
            state.commitCount &+= 1
            if schema { state.schemaGeneration += 1 }
            if let fileError { state.fileError = fileError }
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

    /// Runs rounds until nothing is pending. Only one runs at a time (`isRefreshing`).
    private func runRounds() {
        // Before the first read: a commit made after it is then delivered, and one made before
        // it is in what it reads.
        relay.installIfNeeded(on: writer)
        if watchesFile && versions.withLock({ $0 == nil }) {
            // The baseline must predate the first read, or an outside commit between the two
            // would go unnoticed.
            versionQueue.sync { checkDataVersion() }
        }
        while true {
            typealias Entry = (
                id: Int, run: @Sendable (Database) -> Fetched, fail: @Sendable (any Error) -> Fetched,
                waiters: [Completion]
            )
            let (batch, commitCount, schemaGeneration, fileError) = state.withLock {
                state -> ([Entry], Int, Int, SharingSQLiteError?) in
                var batch: [Entry] = []
                batch.reserveCapacity(state.pendingIDs.count)
                for id in state.pendingIDs {
                    guard let record = state.records[id] else { continue }
                    batch.append((id, record.run, record.fail, record.waiters))
                    state.records[id]!.waiters = []
                    state.records[id]!.isPending = false
                    state.records[id]!.isInFlight = true
                    state.records[id]!.fetchCount += 1
                }
                state.pendingIDs.removeAll(keepingCapacity: true)
                if batch.isEmpty { state.isRefreshing = false }
                return (batch, state.commitCount, state.schemaGeneration, state.fileError)
            }
            if batch.isEmpty { return }
            let results: [Fetched]
            if let fileError {
                results = batch.map { $0.fail(fileError) }
            } else {
                do {
                    results = try writer.read { db in
                        if schemaGeneration != 0 { refreshSchema(of: db, generation: schemaGeneration) }
                        return batch.map { $0.run(db) }
                    }
                } catch {
                    results = batch.map { $0.fail(error) }
                }
            }
            for result in results { result.apply() }
            let joiners = state.withLock { state -> [[Completion]] in
                var joiners: [[Completion]] = []
                joiners.reserveCapacity(batch.count)
                for (entry, result) in zip(batch, results) {
                    guard let record = state.records[entry.id] else {
                        joiners.append([])
                        continue
                    }
                    joiners.append(record.joiners)
                    state.records[entry.id]!.joiners = []
                    state.records[entry.id]!.isInFlight = false
                    if case .success = result.outcome { state.records[entry.id]!.isMarkedStale = false }
                    if record.region != result.region {
                        state.unindex(entry.id, record.region)
                        state.index(entry.id, result.region)
                        state.records[entry.id]!.region = result.region
                        // A commit made during the read was matched against the old region.
                        if state.commitCount != commitCount { state.pend(entry.id) }
                    }
                    if record.readerCount == 0 && record.isEvicted && record.waiters.isEmpty { state.remove(entry.id) }
                }
                state.select(in: observedTables)
                return joiners
            }
            for ((entry, result), joiners) in zip(zip(batch, results), joiners) {
                for waiter in entry.waiters + joiners { waiter(result.outcome) }
            }
        }
    }

    // MARK: Other connections and processes

    private func startMonitoring() {
        let monitor = FileChangeMonitor(
            path: writer.path,
            onStart: { [weak self] in self?.scheduleDataVersionCheck() },
            onChange: { [weak self] in self?.scheduleDataVersionCheck() },
            onMove: { [weak self] move in self?.fileDidMove(move) })
        let extra = state.withLock { state -> FileChangeMonitor? in
            guard state.monitor == nil, state.readerCount > 0 else { return monitor }
            state.monitor = monitor
            return nil
        }
        extra?.stop()
    }

    /// Checks `data_version` without making the caller (the file monitor's thread) wait for the
    /// writer: a file deleted while the writer is busy is still noticed at once.
    private func scheduleDataVersionCheck() {
        versionQueue.async { self.checkDataVersion() }
    }

    /// Reads `data_version` on the writer connection, and refetches everything if it moved.
    /// Runs on `versionQueue` only, so no lock is held while it waits for the writer; and never
    /// inside the state's lock, which the commit hook takes on the writer's thread.
    private func checkDataVersion() {
        dispatchPrecondition(condition: .onQueue(versionQueue))
        let previous = versions.withLock { $0 }
        let current = try? writer.writeWithoutTransaction { db -> (data: Int64, schema: Int64) in
            let data = try db.dataVersion
            // A schema change by another connection is a commit of theirs: it moves
            // `data_version` too, so `schema_version` needs reading only then.
            if let previous, previous.data == data { return previous }
            return (data, try db.fetchOne(Int64.self, "PRAGMA schema_version") ?? 0)
        }
        guard let current else { return }
        versions.withLock { $0 = current }
        guard let previous, previous.data != current.data else { return }
        didChangeElsewhere(schema: previous.schema != current.schema)
    }

    /// Makes `db` forget the schema it knew, once per change of the schema by another process.
    ///
    /// SQLite prepares a statement on the connection's copy of the schema without checking it
    /// against the file, and notices the change only when the statement runs: until then its
    /// columns are the old ones, and so are those of statements cached before. So the cached
    /// statements go, and a read of the schema table (which checks the copy and reloads it)
    /// comes before the round's statements are prepared.
    private func refreshSchema(of db: Database, generation: Int) {
        let id = ObjectIdentifier(db)
        let isStale = schemaGenerations.withLock { seen in
            defer { seen[id] = generation }
            return seen[id] != generation
        }
        guard isStale else { return }
        db.clearStatementCache()
        _ = try? db.fetchOne(Int.self, "SELECT count(*) FROM sqlite_master")
    }

    /// The file was deleted or replaced: from now on every fetch fails, saying so.
    private func fileDidMove(_ move: FileChangeMonitor.Move) {
        didChangeElsewhere(
            fileError: move == .deleted
                ? .databaseFileDeleted(path: writer.path) : .databaseFileReplaced(path: writer.path))
    }
}

/// Forwards the writer's commits to its current center. The writer keeps the relay for its whole
/// life, while centers come and go with their readers.
private final class CommitRelay: Sendable {
    struct WeakCenter {
        weak var center: ObservationCenter?
    }

    let center = Lock(WeakCenter())
    /// The tables the queries of the current center read. A center gone leaves its tables
    /// selected, which costs a delivery to no one, until the next one selects its own.
    let tables = ObservedTables()
    /// Whether the commit hook is on the writer connection yet.
    private let installation = Lock(Installation.none)

    private enum Installation { case none, installing, installed }

    /// Installs the commit hook on the writer connection, once. Called on a center's queue
    /// (one center per relay at a time), which may wait for the writer: the caller of
    /// `center(for:)` never does.
    func installIfNeeded(on writer: any DatabaseWriter) {
        let claimed = installation.withLock { state -> Bool in
            guard case .none = state else { return false }
            state = .installing
            return true
        }
        guard claimed else { return }
        // The body cannot throw, so neither can the call.
        _ = try? writer.writeWithoutTransaction { db in
            db.addChangeObserver(observing: tables) { changes in self.deliver(changes) }
        }
        installation.withLock { $0 = .installed }
    }

    func deliver(_ changes: DatabaseChanges) {
        center.withLock { $0.center }?.didCommit(changes)
    }
}
