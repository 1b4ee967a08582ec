/// Something that gives access to a database for reading, from any thread or task.
///
/// ``DatabaseQueue`` and ``DatabasePool`` conform. Reads see one consistent snapshot of the
/// database for the whole closure, and cannot write.
public protocol DatabaseReader: AnyObject, Sendable {
    /// The database file path, or `":memory:"`.
    var path: String { get }

    /// Runs `body` with a read-only connection, blocking the calling thread until it is done.
    ///
    /// ```swift
    /// let count = try queue.read { db in try db.fetchOne(Int.self, "SELECT count(*) FROM items") }
    /// ```
    func read<T>(_ body: (Database) throws -> T) throws -> T

    /// Runs `body` with a read-only connection, suspending the task instead of blocking it.
    func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T
}

/// Something that gives access to a database for writing, from any thread or task.
public protocol DatabaseWriter: DatabaseReader {
    /// Runs `body` in a transaction on the writer connection: committed when it returns, rolled
    /// back when it throws. Blocks the calling thread.
    ///
    /// ```swift
    /// try queue.write { db in try db.execute("UPDATE items SET done = 1 WHERE id = ?", [42]) }
    /// ```
    func write<T>(_ body: (Database) throws -> T) throws -> T

    /// Runs `body` in a transaction on the writer connection, suspending the task instead of blocking it.
    func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T

    /// Runs `body` on the writer connection outside of any transaction, for statements that
    /// cannot run in one (`VACUUM`, some `PRAGMA`s) or that manage transactions themselves.
    func writeWithoutTransaction<T>(_ body: (Database) throws -> T) throws -> T

    /// Runs `body`, which reads `PRAGMA data_version`, on the connection whose version moves when
    /// another connection or process commits: the writer connection, or the unlocked one of a
    /// queue that reads without locks (``Database/Configuration/readsWithoutLocks``), so that
    /// checking for changes never holds a lock another program's write waits for.
    func readDataVersion<T>(_ body: (Database) throws -> T) throws -> T
}

extension DatabaseWriter {
    public func readDataVersion<T>(_ body: (Database) throws -> T) throws -> T {
        try writeWithoutTransaction(body)
    }
}
