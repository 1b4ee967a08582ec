import Dispatch
import LiveQuery
import Locking
import PostgresNIO
import QueryBuilder
import QueryEviction
import SQLCore
import SQLRecords

/// The engine that keeps the live values of a PostgreSQL database current.
typealias PostgreSQLLiveEngine = LiveQueryEngine<PostgreSQLLiveSource>

/// How a live-query engine reads PostgreSQL and learns of its changes.
///
/// Changes arrive as notifications on the process's one listening connection to the server
/// (``ChangeListener``), sent by the statement-level triggers that
/// ``PostgreSQLDatabase/installChangeNotifications(on:schema:)`` installs: each names the schema
/// and table that a statement of some instance of the service changed, once the transaction
/// commits, and when the statement changed few rows, carries them (see
/// ``PostgreSQLDatabase/changeChannel``). Only the readers of that table refetch; and of the
/// readers whose query-builder requests filter that one table (a ``RowScope``), only those whose
/// filters may match a changed row, before or after, as PostgreSQL compares (integers, and text
/// under a deterministic collation; anything else may match). The rows are read in the table's
/// layout (its columns, their types and collations), learned once per table by the fetches and
/// forgotten with the plans; rows that do not fit it exactly (the schema changed meanwhile, or
/// the notification is not a trigger's) count as a change of the whole table. A schema change
/// (or a notification this version cannot read) makes every query learn its tables again and
/// refetch. When the listening
/// connection is lost, every reader refetches (and fails, keeping its value and setting
/// `loadError`, while the server is away); when the server refuses the listener the change log
/// (a role without access to it), every reader fails with that refusal until the listener reads
/// the log again; when it listens again, every reader learns its tables again and refetches once
/// more, so that nothing missed meanwhile stays stale.
///
/// Rounds read on connections of the source's own, opened on first use and again after they were
/// lost: not the database's pool, whose connections serve the service's requests, and which a
/// burst of refetches must neither wait for nor drain. Each statement of a round reads the latest
/// committed state: PostgreSQL's snapshot per statement, rather than one transaction, so that one
/// failing query does not abort the others.
///
/// PostgresNIO sends a connection's next statement only once the previous one's result has
/// arrived, so a round of many queries on one connection costs as many round trips one after
/// another. A round of more than ``queriesPerConnection`` queries is therefore spread over up to
/// ``connectionLimit`` connections, each read on a thread of its own, taking the next query as it
/// finishes one.
final class PostgreSQLLiveSource: LiveQuerySource {
    /// The most connections a round reads on at once.
    static let connectionLimit = 4
    /// A round takes one more connection for every this many queries: a connection beyond the
    /// first costs a backend on the server and a thread hop, worth it only over a few round trips.
    static let queriesPerConnection = 4
    /// The `application_name` of the rounds' connections, as `pg_stat_activity` shows it.
    static let applicationName = "live_query_rounds"

    let configuration: PostgreSQLDatabase.Configuration
    /// The engine reading from this source; weak, since the engine owns the source.
    fileprivate let engine = Lock(WeakEngine())
    /// The connections rounds read on, by slot; nil until a round needs it, and after it was lost.
    /// Slot 0 is read on the engine's queue, each other slot on its queue in `queues`.
    private let sessions = Lock<[Session?]>(Array(repeating: nil, count: connectionLimit))
    /// Serial queues for the slots beyond the first: each blocks its thread waiting for the server,
    /// which the threads of a queue of one's own may do.
    private let queues = (1..<connectionLimit).map { DispatchQueue(label: "PostgreSQL.PostgreSQLLiveSource.read\($0)") }
    /// The tables the engine's queries read, for filtering notifications.
    private let selection = Lock(TableSelection())
    /// SQL → the tables it reads, learned from its plan once per SQL text, arguments and schema change.
    private let planTables = PlanTables()
    /// Whether the listening connection listens now, and who waits until it does; for tests.
    private let listening = Lock<(isListening: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    init(configuration: PostgreSQLDatabase.Configuration) {
        self.configuration = configuration
    }

    // MARK: LiveQuerySource

    func prepareRounds() {}

    /// One read on the first connection; rounds go through `readEach(_:_:)`.
    func read<T>(_ body: (PostgreSQLReadConnection) throws -> T) throws -> T {
        let current = try session(at: 0)
        defer { dropIfClosed(current, at: 0) }
        return try body(PostgreSQLReadConnection(session: current, planTables: planTables))
    }

    func readEach<T: Sendable>(_ count: Int, _ fetch: @Sendable (PostgreSQLReadConnection, Int) -> T) throws -> [T] {
        // The first connection fails the round when it cannot open, as one connection did; a
        // further one that cannot open leaves its share to the others.
        let first = try session(at: 0)
        var others: [(slot: Int, session: Session)] = []
        let wanted = min(Self.connectionLimit, (count + Self.queriesPerConnection - 1) / Self.queriesPerConnection)
        for slot in 1..<max(1, wanted) {
            guard let opened = try? session(at: slot) else { break }
            others.append((slot, opened))
        }
        defer {
            dropIfClosed(first, at: 0)
            for (slot, session) in others { dropIfClosed(session, at: slot) }
        }
        guard !others.isEmpty else {
            let connection = PostgreSQLReadConnection(session: first, planTables: planTables)
            return (0..<count).map { fetch(connection, $0) }
        }
        let next = Lock(0)
        let results = Lock([T?](repeating: nil, count: count))
        let planTables = planTables
        // Takes the round's next query until none is left. A connection of another slot that was
        // lost stops taking them, leaving the rest to the first, whose own failures are the
        // queries' errors.
        @Sendable func work(_ session: Session, stopsWhenClosed: Bool) {
            let connection = PostgreSQLReadConnection(session: session, planTables: planTables)
            while !(stopsWhenClosed && session.connection.isClosed) {
                let index = next.withLock { index in
                    defer { index += 1 }
                    return index
                }
                guard index < count else { return }
                let result = fetch(connection, index)
                results.withLock { $0[index] = result }
            }
        }
        // The group's wait below outlives every use of `fetch`.
        withoutActuallyEscaping(work) { work in
            let group = DispatchGroup()
            for (slot, session) in others {
                queues[slot - 1].async(group: group) { work(session, true) }
            }
            work(first, false)
            group.wait()
        }
        // Every index was taken by a worker that then stored its result.
        return results.withLock { $0.map { $0! } }
    }

    func select(_ tables: TableSelection) {
        selection.withLock { $0 = tables }
    }

    func startWatching() -> ChangeListener.Subscription? {
        ChangeListener.shared(for: configuration).subscribe { [weak self] event in self?.receive(event) }
    }

    func stopWatching(_ subscription: ChangeListener.Subscription) {
        subscription.cancel()
    }

    /// A lock or statement time limit, a serialization failure or deadlock, a server short of
    /// resources, or a pool with no free connection: 50 ms, twice as long at each retry in a
    /// row, up to 5 s. A lost connection needs none: the listener's reconnection refetches.
    func retryDelay(after error: any Error, attempt: Int) -> Duration? {
        guard let error = error as? PostgreSQLError else { return nil }
        let transient =
            error.kind == .poolExhausted
            || (error.kind == .server
                && ["55P03", "57014", "40001", "40P01"].contains(error.sqlState ?? "")
                || error.sqlState?.hasPrefix("53") == true)
        guard transient else { return nil }
        return min(.milliseconds(50) * (1 << min(attempt, 7)), .seconds(5))
    }

    // MARK: Internals

    /// The connection of `slot`, opened when there is none or the server closed it (restarted,
    /// or ended the backend).
    private func session(at slot: Int) throws -> Session {
        if let open = sessions.withLock({ $0[slot] }), !open.connection.isClosed { return open }
        let server = configuration.serverDescription
        do {
            var options = try configuration.connectionConfiguration()
            options.options.additionalStartupParameters.append(("application_name", Self.applicationName))
            let opened = try PostgresConnection.connect(
                on: PostgresConnection.defaultEventLoopGroup.any(), configuration: options, id: slot,
                logger: Session.logger
            ).wait()
            let session = Session(connection: opened, server: server)
            sessions.withLock { $0[slot] = session }
            return session
        } catch {
            throw PostgreSQLError.mapping(error, sql: nil, server: server)
        }
    }

    /// Forgets a connection that went away, so that the next round opens another.
    private func dropIfClosed(_ session: Session, at slot: Int) {
        guard session.connection.isClosed else { return }
        sessions.withLock { if $0[slot]?.connection === session.connection { $0[slot] = nil } }
    }

    private func receive(_ event: ChangeListener.Event) {
        guard let engine = engine.withLock({ $0.engine }) else { return }
        switch event {
        case .changed(let schema, let table, let rows):
            let qualifiedName = PostgreSQLDatabase.qualifiedName(schema: schema, table: table)
            // Folded as `DatabaseRegion` folds the names it holds.
            let name = qualifiedName.sqliteFolded
            let (selected, scoped) = selection.withLock { ($0.contains(name), $0.rowTables.contains(name)) }
            guard selected else { return }
            var changes = DatabaseChanges(tables: [name: []])
            // Rows only in the layout the table's scopes were made with since the schema last
            // changed; any other notification may change every reader of the table.
            if scoped, let rows, let layout = planTables.layout(ofTable: qualifiedName),
                let rowChanges = layout.rowChanges(rows)
            {
                changes.storage[0].rows = rowChanges
                changes.storage[0].rowsComplete = true
            }
            engine.didCommit(changes)
        case .schemaChanged:
            planTables.forget()
            engine.didChangeElsewhere()
        case .listening:
            // A schema change may have gone unnoticed meanwhile too.
            planTables.forget()
            engine.didRecover()
            // After the refetch is scheduled, so that a waiter's next fetch comes after it.
            let waiters = listening.withLock { state in
                state.isListening = true
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters { waiter.resume() }
        case .lost(let error):
            listening.withLock { $0.isListening = false }
            // The server answers, but refuses this role the change log: the values cannot follow
            // its changes, and say so until the listener reads the log again. A connection that
            // is lost fails the fetches by itself while the server is away.
            engine.didChangeElsewhere(failure: error.kind == .server ? error : nil)
        }
    }

    /// Returns once the listening connection listens, and the refetch that follows is scheduled;
    /// for tests.
    func untilListening() async {
        await withCheckedContinuation { continuation in
            let now = listening.withLock { state in
                if !state.isListening { state.waiters.append(continuation) }
                return state.isListening
            }
            if now { continuation.resume() }
        }
    }

    /// Closes the rounds' connections; the engine is gone.
    deinit {
        for connection in sessions.withLock({ $0 }).compactMap({ $0?.connection }) {
            // The connection must outlive its closing: PostgresNIO checks that it was closed.
            connection.close().whenComplete { _ in withExtendedLifetime(connection) {} }
        }
    }
}

/// A weak reference to an engine, which its source must not keep alive.
struct WeakEngine {
    weak var engine: PostgreSQLLiveEngine?
}

extension PostgreSQLDatabase {
    /// The engine of this database's live values, made on first use; it goes with its last
    /// reader.
    var liveEngine: PostgreSQLLiveEngine {
        PostgreSQLLiveEngine.of(self) { database in
            let source = PostgreSQLLiveSource(configuration: database.configuration)
            let engine = PostgreSQLLiveEngine(source: source)
            source.engine.withLock { $0.engine = engine }
            return engine
        }
    }
}
