import Dispatch
import LiveQuery
import Locking
import PostgresNIO
import QueryBuilder
import QueryCache
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
/// commits. Only the readers of that table refetch. A schema change (or a notification this
/// version cannot read) makes every query learn its tables again and refetch. When the listening
/// connection is lost, every reader refetches (and fails, keeping its value and setting
/// `loadError`, while the server is away); when it listens again, every reader learns its tables
/// again and refetches once more, so that nothing missed meanwhile stays stale.
///
/// Rounds read on a connection of the source's own, opened on first use and again after it was
/// lost. Each statement of a round reads the latest committed state: PostgreSQL's snapshot per
/// statement, rather than one transaction, so that one failing query does not abort the others.
final class PostgreSQLLiveSource: LiveQuerySource {
    let configuration: PostgreSQLDatabase.Configuration
    /// The engine reading from this source; weak, since the engine owns the source.
    fileprivate let engine = Lock(WeakEngine())
    /// The connection rounds read on; nil until the first round, and after it was lost. Used on
    /// the engine's queue only.
    private let session = Lock<Session?>(nil)
    /// The tables the engine's queries read, for filtering notifications.
    private let selection = Lock(TableSelection())
    /// SQL → the tables it reads, learned from its plan once per SQL text and schema change.
    private let planTables = PlanTables()
    /// Whether the listening connection listens now, and who waits until it does; for tests.
    private let listening = Lock<(isListening: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    init(configuration: PostgreSQLDatabase.Configuration) {
        self.configuration = configuration
    }

    // MARK: LiveQuerySource

    func prepareRounds() {}

    func read<T>(_ body: (PostgreSQLReadConnection) throws -> T) throws -> T {
        // A connection the server closed (restarted, or ended the backend) is replaced.
        let open = session.withLock { $0 }.flatMap { $0.connection.isClosed ? nil : $0 }
        let current = try open ?? connect()
        do {
            return try body(PostgreSQLReadConnection(session: current, planTables: planTables))
        } catch {
            // A connection that went away is replaced in the next round.
            if current.connection.isClosed { session.withLock { $0 = nil } }
            throw error
        }
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

    // MARK: Internals

    private func connect() throws -> Session {
        let server = configuration.serverDescription
        do {
            let opened = try PostgresConnection.connect(
                on: PostgresConnection.defaultEventLoopGroup.any(),
                configuration: configuration.connectionConfiguration(), id: 0, logger: Session.logger
            ).wait()
            let session = Session(connection: opened, server: server)
            self.session.withLock { $0 = session }
            return session
        } catch {
            throw PostgreSQLError.mapping(error, sql: nil, server: server)
        }
    }

    private func receive(_ event: ChangeListener.Event) {
        guard let engine = engine.withLock({ $0.engine }) else { return }
        switch event {
        case .changed(let schema, let table):
            // Folded as `DatabaseRegion` folds the names it holds.
            let name = PostgreSQLDatabase.qualifiedName(schema: schema, table: table).sqliteFolded
            let selected = selection.withLock { $0.contains(name) }
            if selected { engine.didCommit(DatabaseChanges(tables: [name: []])) }
        case .schemaChanged:
            planTables.forget()
            engine.didChangeElsewhere()
        case .listening:
            // A schema change may have gone unnoticed meanwhile too.
            planTables.forget()
            engine.didChangeElsewhere()
            // After the refetch is scheduled, so that a waiter's next fetch comes after it.
            let waiters = listening.withLock { state in
                state.isListening = true
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters { waiter.resume() }
        case .lost:
            listening.withLock { $0.isListening = false }
            engine.didChangeElsewhere()
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

    /// Closes the rounds' connection; the engine is gone.
    deinit {
        guard let connection = session.withLock({ $0 })?.connection else { return }
        // The connection must outlive its closing: PostgresNIO checks that it was closed.
        connection.close().whenComplete { _ in withExtendedLifetime(connection) {} }
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
