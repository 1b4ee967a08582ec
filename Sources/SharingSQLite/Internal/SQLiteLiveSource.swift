import Dispatch
import Locking
import QueryEviction
import Synchronization

/// The engine that keeps the live values of a SQLite database current: one per writer, found
/// with `of(_:)`.
typealias SQLiteLiveEngine = LiveQueryEngine<SQLiteLiveSource>

/// How a ``LiveQueryEngine`` reads a SQLite database and learns of its changes.
///
/// Commits of the writer connection reach the engine from a commit hook on it, installed once
/// (``CommitRelay``); the hook is told which tables the engine's index holds (`ObservedTables`),
/// so that a commit that matches none costs the writer almost nothing. Commits by other
/// connections and processes are noticed through `PRAGMA data_version`, checked when the file
/// changes (``FileChangeMonitor``); a change of the schema among them makes the read connections
/// reload theirs, and a file deleted or replaced makes every query fail with a
/// ``SharingSQLiteError`` that says so.
final class SQLiteLiveSource: LiveQuerySource {
    let writer: any DatabaseWriter
    /// Forwards the writer's commits to the engine, once installed on the writer connection.
    private let relay: CommitRelay
    /// The engine reading from this source, told of the changes the commit hook cannot see.
    fileprivate let engine = Lock(WeakEngine())
    /// False for a database in memory: no other connection can change it.
    private let watchesFile: Bool
    /// The writer's `data_version` and `schema_version` when last read; `data_version` only
    /// moves for others' commits. Written on `versionQueue` only.
    private let versions = Lock<(data: Int64, schema: Int64)?>(nil)
    /// Bumped when another process changed the schema, so that each read connection forgets the
    /// schema it knew (see `refreshSchema`). Atomic, so that a round's read checks it without a
    /// lock.
    private let schemaGeneration = Atomic<Int>(0)
    /// The schema generation each read connection last refreshed its schema for.
    private let schemaGenerations = Lock<[ObjectIdentifier: Int]>([:])
    /// Where `data_version` is checked, one check at a time, so that readings are stored in
    /// order. Not the engine's queue: a check waits for the writer, which a pool's rounds need not.
    private let versionQueue = DispatchQueue(label: "SharingSQLite.SQLiteLiveSource.dataVersion")

    fileprivate init(writer: any DatabaseWriter, relay: CommitRelay) {
        self.writer = writer
        self.relay = relay
        let path = writer.path
        watchesFile =
            !(path.isEmpty || path == ":memory:" || path.hasPrefix("file::memory:") || path.contains("mode=memory"))
    }

    // MARK: LiveQuerySource

    func prepareRounds() {
        // Before the first read: a commit made after it is then delivered, and one made before
        // it is in what it reads.
        relay.installIfNeeded(on: writer)
        if watchesFile && versions.withLock({ $0 == nil }) {
            // The baseline must predate the first read, or an outside commit between the two
            // would go unnoticed.
            versionQueue.sync { checkDataVersion() }
        }
    }

    func read<T>(_ body: (Database) throws -> T) throws -> T {
        try writer.read { db in
            let generation = schemaGeneration.load(ordering: .acquiring)
            if generation != 0 { refreshSchema(of: db, generation: generation) }
            return try body(db)
        }
    }

    func select(_ tables: TableSelection) {
        relay.tables.update(tables)
    }

    func startWatching() -> FileChangeMonitor? {
        guard watchesFile else { return nil }
        // A check at start catches the commits made while nobody watched.
        return FileChangeMonitor(
            path: writer.path,
            onStart: { [weak self] in self?.scheduleDataVersionCheck() },
            onChange: { [weak self] in self?.scheduleDataVersionCheck() },
            onMove: { [weak self] move in self?.fileDidMove(move) })
    }

    func stopWatching(_ monitor: FileChangeMonitor) {
        monitor.stop()
    }

    // MARK: Other connections and processes

    /// Checks `data_version` without making the caller (the file monitor's thread) wait for the
    /// writer: a file deleted while the writer is busy is still noticed at once.
    private func scheduleDataVersionCheck() {
        versionQueue.async { self.checkDataVersion() }
    }

    /// Reads `data_version` on the writer connection, and refetches everything if it moved.
    /// Runs on `versionQueue` only, so no lock is held while it waits for the writer; and never
    /// inside the engine's lock, which the commit hook takes on the writer's thread.
    private func checkDataVersion() {
        dispatchPrecondition(condition: .onQueue(versionQueue))
        let previous = versions.withLock { $0 }
        let current = try? writer.readDataVersion { db -> (data: Int64, schema: Int64) in
            let data = try db.dataVersion
            // A schema change by another connection is a commit of theirs: it moves
            // `data_version` too, so `schema_version` needs reading only then.
            if let previous, previous.data == data { return previous }
            return (data, try db.fetchOne(Int64.self, "PRAGMA schema_version") ?? 0)
        }
        guard let current else { return }
        versions.withLock { $0 = current }
        guard let previous, previous.data != current.data else { return }
        // Before the engine hears of the change, so that the rounds it starts read the new schema.
        if previous.schema != current.schema { schemaGeneration.add(1, ordering: .releasing) }
        engine.withLock { $0.engine }?.didChangeElsewhere()
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
        let path = writer.path
        engine.withLock { $0.engine }?.didChangeElsewhere(
            failure: move == .deleted
                ? SharingSQLiteError.databaseFileDeleted(path: path) : .databaseFileReplaced(path: path))
    }
}

extension LiveQueryEngine where Source == SQLiteLiveSource {
    /// The engine of `writer`, made on first use.
    ///
    /// It never waits for the writer, so it may be called from anywhere, even from inside one of
    /// the writer's `read` or `write` closures: the commit hook is installed by the engine's first
    /// round, on the engine's own queue, before that round reads.
    static func of(_ writer: any DatabaseWriter) -> SQLiteLiveEngine {
        of(writer as AnyObject & Sendable) { _ in
            let relay = CommitRelay.of(writer)
            let source = SQLiteLiveSource(writer: writer, relay: relay)
            let engine = SQLiteLiveEngine(source: source)
            source.engine.withLock { $0.engine = engine }
            relay.engine.withLock { $0.engine = engine }
            return engine
        }
    }

    /// The engine of `writer` if it has one now.
    static func existing(of writer: any DatabaseWriter) -> SQLiteLiveEngine? {
        existing(of: writer as AnyObject & Sendable)
    }
}

/// A weak reference to an engine, which its source and relay must not keep alive: the engine owns
/// its source, and goes with its last reader while the relay stays on the writer.
private struct WeakEngine {
    weak var engine: SQLiteLiveEngine?
}

/// Forwards the writer's commits to its current engine. The writer keeps the relay for its whole
/// life, while engines come and go with their readers: the hook on the writer is installed once,
/// and a later engine takes over the same relay.
private final class CommitRelay: Sendable {
    let engine = Lock(WeakEngine())
    /// The tables the queries of the current engine read. An engine gone leaves its tables
    /// selected, which costs a delivery to no one, until the next one selects its own.
    let tables = ObservedTables()
    /// Whether the commit hook is on the writer connection yet.
    private let installation = Lock(Installation.none)

    private enum Installation { case none, installing, installed }

    /// Installs the commit hook on the writer connection, once. Called on an engine's queue (one
    /// engine per relay at a time), which may wait for the writer: the caller of `of(_:)`
    /// never does.
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
        engine.withLock { $0.engine }?.didCommit(changes)
    }

    /// The relay of `writer`, made on first use.
    static func of(_ writer: any DatabaseWriter) -> CommitRelay {
        relays.withLock { relays in
            let id = ObjectIdentifier(writer)
            if let relay = relays[id], relay.writer === writer { return relay.relay }
            // Forget writers that are gone, whose identifiers may be reused.
            relays = relays.filter { $0.value.writer != nil }
            let relay = CommitRelay()
            relays[id] = RelayEntry(writer: writer, relay: relay)
            return relay
        }
    }
}

/// Each live writer's relay, kept as long as the writer (its hook holds the relay anyway).
private let relays = Lock<[ObjectIdentifier: RelayEntry]>([:])

private struct RelayEntry {
    /// Compared with the writer looked up: an identifier may be reused once its object is gone.
    weak var writer: (any DatabaseWriter)?
    let relay: CommitRelay
}
