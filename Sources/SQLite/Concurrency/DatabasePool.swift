import CSQLite
import Dispatch
import Locking

/// A WAL-mode database file shared by one writer connection and several reader connections.
///
/// Reads run in parallel with each other and with the writer, each on a consistent snapshot:
/// a read never waits for a write, and never sees half of one.
///
/// ```swift
/// let pool = try DatabasePool(path: "app.sqlite")
/// try await pool.write { db in try db.execute("INSERT INTO items(title) VALUES (?)", ["milk"]) }
/// let items = try await pool.read { db in try db.fetchAll(Item.self, "SELECT * FROM items") }
/// ```
///
/// In-memory databases cannot use WAL; use ``DatabaseQueue`` for them.
public final class DatabasePool: DatabaseWriter {
    public let path: String
    private let configuration: Database.Configuration
    private let writerQueue: ConnectionQueue
    // Only touched inside `writerQueue`, a serial queue.
    nonisolated(unsafe) private let writer: Database
    private let readerSlots: DispatchSemaphore
    private let idleReaders = Lock<[ReaderConnection]>([])

    /// Opens (or creates) the file at `path` and switches it to WAL mode.
    ///
    /// - Parameters:
    ///   - path: The database file. In-memory databases cannot be pooled; use ``DatabaseQueue``.
    ///   - configuration: How each connection is opened.
    ///   - maximumReaderCount: how many reads can run at once; more wait for a free reader.
    public init(
        path: String, configuration: Database.Configuration = Database.Configuration(), maximumReaderCount: Int = 4
    ) throws {
        guard path != ":memory:", !path.isEmpty, !path.contains("mode=memory") else {
            throw SQLiteError.misuse("DatabasePool needs a database file; use DatabaseQueue for in-memory databases")
        }
        precondition(maximumReaderCount > 0, "a pool needs at least one reader")
        self.path = path
        self.configuration = configuration
        writer = try Database(path: path, configuration: configuration)
        try Self.switchToWAL(writer)
        try writer.execute("PRAGMA synchronous = NORMAL")
        writerQueue = ConnectionQueue(label: "SQLite.DatabasePool.writer")
        readerSlots = DispatchSemaphore(value: maximumReaderCount)
    }

    private static func switchToWAL(_ writer: Database) throws {
        let sql = "PRAGMA journal_mode = WAL"
        let why =
            "a DatabasePool needs the database in WAL mode, and switching to WAL needs write access to the file and to"
            + " its folder (for the -wal and -shm files); to only read this database, use a DatabaseQueue opened with"
            + " the .readOnly configuration"
        let mode: String?
        do {
            mode = try writer.fetchOne(String.self, sql)
        } catch var error as SQLiteError {
            error.message += ": " + why
            error.path = writer.path
            throw error
        }
        guard mode?.lowercased() == "wal" else {
            throw SQLiteError(
                code: SQLITE_ERROR,
                message: "could not switch the database to WAL mode (journal_mode is \(mode ?? "unknown")): " + why,
                sql: sql, path: writer.path)
        }
    }

    public func read<T>(_ body: (Database) throws -> T) throws -> T {
        let reader = try checkOutReader()
        defer { checkIn(reader) }
        return try reader.database.transaction(.deferred, body)
    }

    public func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try Task.checkCancellation()
        return try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try self.read(body) })
            }
        }
    }

    public func write<T>(_ body: (Database) throws -> T) throws -> T {
        try writerQueue.sync { try writer.transaction(.immediate, body) }
    }

    public func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await writerQueue.async { try self.writer.transaction(.immediate, body) }
    }

    public func writeWithoutTransaction<T>(_ body: (Database) throws -> T) throws -> T {
        try writerQueue.sync { try body(writer) }
    }

    private func checkOutReader() throws -> ReaderConnection {
        readerSlots.wait()
        if let reader = idleReaders.withLock({ $0.popLast() }) { return reader }
        do {
            var readerConfiguration = configuration
            readerConfiguration.readOnly = true
            readerConfiguration.create = false
            return ReaderConnection(database: try Database(path: path, configuration: readerConfiguration))
        } catch {
            readerSlots.signal()
            throw error
        }
    }

    private func checkIn(_ reader: ReaderConnection) {
        idleReaders.withLock { $0.append(reader) }
        readerSlots.signal()
    }
}

/// A reader connection between uses. It sits in the idle list or is held by exactly one read
/// (the semaphore and the mutex hand it to one thread at a time), so it is never used by two
/// threads at once.
private final class ReaderConnection: @unchecked Sendable {
    let database: Database
    init(database: Database) { self.database = database }
}
