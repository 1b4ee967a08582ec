/// One connection, shared safely: every `read` and `write` runs in turn on a serial queue.
///
/// ```swift
/// let queue = try DatabaseQueue(path: "app.sqlite")     // DatabaseQueue() is in-memory
/// try queue.write { db in try db.execute("UPDATE items SET done = 1") }
/// let items = try queue.read { db in try db.fetchAll(Item.self, "SELECT * FROM items") }
/// let count = try await queue.read { db in try db.fetchOne(Int.self, "SELECT count(*) FROM items") }
/// ```
///
/// Use it for in-memory databases, tests, and files with little concurrent reading. For files
/// read from many tasks at once, ``DatabasePool`` lets reads run in parallel with the writer.
public final class DatabaseQueue: DatabaseWriter {
    public let path: String
    private let executor: ConnectionQueue
    // Only touched inside `executor`, a serial queue, so one thread at a time uses the connection.
    nonisolated(unsafe) private let database: Database
    /// Reads without locks, when the configuration asks; inside `executor` like `database`.
    nonisolated(unsafe) private let unlocked: UnlockedReads?

    /// Opens the database at `path` (created when missing, unless the configuration says otherwise).
    public init(path: String, configuration: Database.Configuration = Database.Configuration()) throws {
        database = try Database(path: path, configuration: configuration)
        let inMemory = path.isEmpty || path == ":memory:" || path.hasPrefix("file:")
        unlocked =
            configuration.readsWithoutLocks && configuration.readOnly && !inMemory
            ? try UnlockedReads(database) : nil
        self.path = path
        executor = ConnectionQueue(label: "SQLite.DatabaseQueue")
    }

    /// Opens a private in-memory database.
    public convenience init(configuration: Database.Configuration = Database.Configuration()) throws {
        try self.init(path: ":memory:", configuration: configuration)
    }

    public func read<T>(_ body: (Database) throws -> T) throws -> T {
        try executor.sync { try Self.read(database, unlocked, body) }
    }

    public func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await executor.async { try Self.read(self.database, self.unlocked, body) }
    }

    public func write<T>(_ body: (Database) throws -> T) throws -> T {
        try executor.sync { try database.transaction(.immediate, body) }
    }

    public func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await executor.async { try self.database.transaction(.immediate, body) }
    }

    public func writeWithoutTransaction<T>(_ body: (Database) throws -> T) throws -> T {
        try executor.sync { try body(database) }
    }

    public func readDataVersion<T>(_ body: (Database) throws -> T) throws -> T {
        try executor.sync {
            if let unlocked { return try unlocked.read(body) }
            return try body(database)
        }
    }

    private static func read<T>(
        _ database: Database, _ unlocked: UnlockedReads?, _ body: (Database) throws -> T
    ) throws -> T {
        if let unlocked { return try unlocked.read(body) }
        return try readOnly(database, body)
    }

    /// Reads inside a deferred transaction, for a consistent snapshot, with every statement that
    /// may change the database refused, so that a write attempted from a read fails instead of
    /// slipping through.
    static func readOnly<T>(_ database: Database, _ body: (Database) throws -> T) throws -> T {
        database.writeGuard.readsOnly = true
        defer { database.writeGuard.readsOnly = false }
        return try database.transaction(.deferred, body)
    }
}
