import CSQLite

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// One connection to a SQLite database.
///
/// ```swift
/// let db = try Database()                          // in-memory
/// let file = try Database(path: "app.sqlite")      // opens or creates a file
/// let readOnly = try Database(path: "app.sqlite", configuration: .readOnly)
///
/// try db.execute("CREATE TABLE items(id INTEGER PRIMARY KEY, title TEXT NOT NULL)")
/// try db.execute("INSERT INTO items(title) VALUES (?)", ["milk"])
/// let titles = try db.fetchAll(String.self, "SELECT title FROM items")
/// ```
///
/// A connection is used by one thread at a time, which is why it is not `Sendable`. Share a
/// database between tasks and threads with ``DatabaseQueue`` or ``DatabasePool``.
public final class Database {
    /// How a connection is opened and set up.
    public struct Configuration: Sendable {
        /// Open without write access. Writes fail with `SQLITE_READONLY`.
        public var readOnly = false
        /// Create the file when it does not exist (ignored when `readOnly`).
        public var create = true
        /// How long a statement waits for another connection's lock before failing with
        /// `SQLITE_BUSY`.
        public var busyTimeout: Duration = .seconds(5)
        /// Enforce `FOREIGN KEY` constraints (SQLite leaves them off by default).
        public var foreignKeys = true
        /// How many prepared statements each connection keeps, keyed by SQL text.
        public var statementCacheCapacity = 128
        /// Read a rollback-journal database without SQLite's shared lock, so that a read never
        /// makes another program's write fail with "database is locked" (a writer must wait for
        /// every reader before it commits, and one without a busy timeout, such as the `sqlite3`
        /// shell, does not wait). Each read is checked afterwards, and done again when another
        /// process wrote the file meanwhile, so it still sees one committed state. WAL databases
        /// are read as usual: their readers never hold a writer back.
        ///
        /// Only for ``readOnly-property`` connections of a ``DatabaseQueue`` (a ``DatabasePool``'s file
        /// is in WAL mode). The process keeps a descriptor of each file read this way open while
        /// the file has a name: closing one would drop the locks that its other connections
        /// hold on the file.
        public var readsWithoutLocks = false

        /// The default configuration: read-write, created when missing, foreign keys on.
        public init() {}

        /// A configuration that opens an existing database without write access.
        public static var readOnly: Configuration {
            var configuration = Configuration()
            configuration.readOnly = true
            configuration.create = false
            return configuration
        }
    }

    @usableFromInline let handle: OpaquePointer
    /// The file path, or `":memory:"`.
    public let path: String
    /// The configuration the connection was opened with.
    public let configuration: Configuration

    /// Keyed by the SQL's bytes: SQL texts that differ only in Unicode normalization are other
    /// statements to SQLite (they name other tables, hold other literals).
    private var statementCache: [ExactString: Statement] = [:]
    // A connection is used by one thread at a time, so the statements it hands out need no
    // dynamic exclusivity checks, which would cost more than the cache lookup itself.
    @usableFromInline @exclusivity(unchecked) var lastStatement: Statement?
    /// Where query-builder requests render, kept so that rendering allocates nothing. Only used
    /// on the connection's thread, by one request at a time.
    let renderer = SQLRenderer(capacity: 256)
    private var useCounter: UInt64 = 0
    private var savepointDepth = 0
    let tracker = ChangeTracker()
    let writeGuard = WriteGuard()
    /// Kept by the connection, which the statement trace calls back while a recording runs.
    let regionTrace = ReadRegionTrace()
    private var isTrackingChanges = false

    /// Opens (and by default creates) the database file at `path`. `":memory:"` opens a private
    /// in-memory database.
    ///
    /// Throws when the file cannot be opened or is not a SQLite database.
    public convenience init(path: String, configuration: Configuration = Configuration()) throws {
        try self.init(path: path, configuration: configuration, withoutLocks: false)
    }

    /// Opens `path`; `withoutLocks` opens it with SQLite's `nolock` URI parameter, for
    /// ``UnlockedReads``, which checks every read itself (and so does not read the schema here).
    init(path: String, configuration: Configuration, withoutLocks: Bool) throws {
        var flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI
        if configuration.readOnly {
            flags |= SQLITE_OPEN_READONLY
        } else {
            flags |= SQLITE_OPEN_READWRITE
            if configuration.create { flags |= SQLITE_OPEN_CREATE }
        }
        var connection: OpaquePointer?
        let code = sqlite3_open_v2(withoutLocks ? Self.unlockedURI(path) : path, &connection, flags, nil)
        guard code == SQLITE_OK, let connection else {
            var error = SQLiteError(connection: connection, code: code, sql: nil)
            error.path = path
            sqlite3_close_v2(connection)
            throw error
        }
        self.handle = connection
        self.path = path
        self.configuration = configuration
        do {
            let milliseconds =
                configuration.busyTimeout.components.seconds * 1000
                + configuration.busyTimeout.components.attoseconds / 1_000_000_000_000_000
            sqlite3_busy_timeout(connection, Int32(clamping: milliseconds))
            csqlite_disable_double_quoted_strings(connection)
            tracker.recorder.install(on: connection)
            if configuration.foreignKeys {
                try execute("PRAGMA foreign_keys = ON")
            }
            if withoutLocks {
                // It only ever reads, and so answers `PRAGMA query_only` as a guarded reader does.
                try execute("PRAGMA query_only = ON")
            } else {
                try readSchema()
            }
        } catch var error as SQLiteError {
            error.path = path
            statementCache.removeAll()
            lastStatement = nil
            throw error
        }
    }

    /// `path` as a URI whose `nolock` parameter turns SQLite's file locks off; each byte other
    /// than letters, digits and `/._-~` is percent-encoded, so that none ends the path.
    private static func unlockedURI(_ path: String) -> String {
        var uri = "file:"
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "/"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "-"), UInt8(ascii: "~"):
                uri.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                uri +=
                    "%" + String(byte >> 4, radix: 16, uppercase: true) + String(byte & 15, radix: 16, uppercase: true)
            }
        }
        return uri + "?nolock=1"
    }

    /// Forgets the pages, the schema and the statements of a read that may have seen a write in
    /// progress, so that the next read loads them from the file again.
    func forgetWhatWasRead() {
        clearStatementCache()
        sqlite3_db_release_memory(handle)
        // Reloads the schema (a documented effect of RESET) without making it writable.
        try? execute("PRAGMA writable_schema = RESET")
    }

    /// Opens a private in-memory database.
    public convenience init(configuration: Configuration = Configuration()) throws {
        try self.init(path: ":memory:", configuration: configuration)
    }

    /// Reads the schema. Opening is lazy in SQLite: reading now makes a file that is not a
    /// database fail here, naming the file, rather than on some later query.
    ///
    /// A write that was interrupted (a crash, a kill) in rollback-journal mode leaves a hot
    /// journal, which must be rolled back before anyone reads, and a read-only connection
    /// cannot do that. So a read-only connection that meets one opens the file once with write
    /// access, which rolls the journal back, and reads again.
    private func readSchema() throws {
        let sql = "SELECT count(*) FROM sqlite_master"
        do {
            _ = try fetchOne(Int.self, sql)
        } catch let error as SQLiteError where error.extendedCode == SQLiteError.readOnlyRollback {
            guard configuration.readOnly else { throw error }
            var writable = configuration
            writable.readOnly = false
            writable.create = false
            do {
                _ = try Database(path: path, configuration: writable)
            } catch let rollbackError as SQLiteError {
                var error = error
                if rollbackError.extendedCode != SQLiteError.readOnlyRollback {
                    error.message += " (opening it with write access to roll back failed: \(rollbackError.message))"
                }
                throw error
            }
            _ = try fetchOne(Int.self, sql)
        }
    }

    deinit {
        if isTrackingChanges { ChangeTracker.uninstall(from: handle) }
        statementCache.removeAll()
        lastStatement = nil
        // close_v2 defers the close until statements still held elsewhere are finalized.
        sqlite3_close_v2(handle)
    }

    // MARK: Executing

    /// Runs one SQL statement with positional arguments.
    ///
    /// ```swift
    /// try db.execute("UPDATE items SET done = ? WHERE id = ?", [true, 42])
    /// ```
    ///
    /// Throws when the SQL holds more than one statement (use ``executeScript(_:)``) or the
    /// number of arguments does not match the statement's parameters; nothing runs then.
    @inlinable
    public func execute(_ sql: String, _ arguments: [DatabaseValue] = []) throws {
        try cachedStatement(sql).execute(arguments)
    }

    /// Runs one SQL statement with named arguments: `:title` in the SQL, `"title"` in the dictionary.
    public func execute(_ sql: String, named arguments: [String: DatabaseValue]) throws {
        let statement = try cachedStatement(sql)
        try statement.bind(named: arguments)
        defer { statement.reset() }
        while try statement.step() {}
    }

    /// Runs every statement of a script, in order, without arguments. Statements are not cached.
    ///
    /// Wrap the call in ``transaction(_:_:)`` to apply all or nothing.
    public func executeScript(_ sql: String) throws {
        try Self.withSQLText(sql) { text, count in
            var cursor = text
            let end = text + count
            while cursor < end {
                var statementHandle: OpaquePointer?
                var tail: UnsafePointer<CChar>?
                let (code, recording) = tracker.recorder.record {
                    sqlite3_prepare_v2(handle, cursor, -1, &statementHandle, &tail)
                }
                let statementText = String(
                    decoding: UnsafeRawBufferPointer(start: cursor, count: (tail ?? end) - cursor), as: UTF8.self
                ).trimmingWhitespacesAndNewlines()
                guard code == SQLITE_OK else { throw SQLiteError(connection: handle, code: code, sql: statementText) }
                guard let statementHandle else { break }  // only whitespace or comments were left
                let statement = Statement(
                    sql: statementText, handle: statementHandle, readRegion: recording.readRegion,
                    writtenTables: recording.writtenTables, control: recording.control, tracker: tracker,
                    writeGuard: writeGuard,
                    changesSchema: recording.changesSchema)
                while try statement.step() {}
                guard let tail else { break }
                cursor = tail
            }
        }
    }

    /// Hands `sql` to `prepare` as a NUL-terminated C string and its length in bytes. All SQL
    /// reaches `sqlite3_prepare` through here: SQLite stops reading at a NUL byte, so SQL that
    /// holds one is refused, rather than run with everything after the NUL silently dropped.
    private static func withSQLText<T>(
        _ sql: String, _ prepare: (UnsafePointer<CChar>, Int) throws -> T
    ) throws -> T {
        if let nul = sql.utf8.firstIndex(of: 0) {
            let offset = sql.utf8.distance(from: sql.utf8.startIndex, to: nul)
            throw SQLiteError(
                code: SQLITE_MISUSE,
                message:
                    "the SQL holds a NUL byte (at byte \(offset)); SQLite would ignore everything after it, so nothing ran",
                sql: sql)
        }
        return try sql.withCString { try prepare($0, sql.utf8.count) }
    }

    /// The rowid of the most recent successful INSERT on this connection.
    public var lastInsertedRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// How many rows the most recent INSERT, UPDATE or DELETE changed.
    public var changesCount: Int { Int(sqlite3_changes64(handle)) }

    /// How many rows were changed since the connection opened.
    public var totalChangesCount: Int { Int(sqlite3_total_changes64(handle)) }

    /// True inside a transaction (SQLite is not in autocommit mode).
    public var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// True when the connection cannot write.
    public var isReadOnly: Bool { sqlite3_db_readonly(handle, "main") == 1 }

    // MARK: Statements

    /// Prepares a statement that the caller owns; it is not cached.
    ///
    /// Throws when the SQL is invalid or holds more than one statement.
    public func makeStatement(_ sql: String) throws -> Statement {
        var statementHandle: OpaquePointer?
        // Where the first statement ends, as a byte offset: the C string is gone after the call.
        var tailOffset = 0
        let (code, recording) = try Self.withSQLText(sql) { text, count in
            tracker.recorder.record {
                var tail: UnsafePointer<CChar>?
                let code = sqlite3_prepare_v3(
                    handle, text, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statementHandle, &tail)
                tailOffset = tail.map { $0 - text } ?? count
                return code
            }
        }
        guard code == SQLITE_OK else { throw SQLiteError(connection: handle, code: code, sql: sql) }
        guard let statementHandle else {
            throw SQLiteError(code: SQLITE_MISUSE, message: "the SQL holds no statement", sql: sql)
        }
        if tailOffset < sql.utf8.count {
            let rest = String(decoding: sql.utf8.dropFirst(tailOffset), as: UTF8.self)
                .trimmingWhitespacesAndNewlines()
            if !rest.isEmpty && !Self.isOnlyComments(rest) {
                sqlite3_finalize(statementHandle)
                throw SQLiteError(
                    code: SQLITE_MISUSE,
                    message:
                        "expected one statement but the SQL holds more (use executeScript for scripts); extra: \(rest.prefix(60))",
                    sql: sql)
            }
        }
        return Statement(
            sql: sql, handle: statementHandle, readRegion: recording.readRegion,
            writtenTables: recording.writtenTables, control: recording.control, tracker: tracker,
            writeGuard: writeGuard,
            changesSchema: recording.changesSchema)
    }

    private static func isOnlyComments(_ text: String) -> Bool {
        var rest = Substring(text)
        while !rest.isEmpty {
            rest = rest.drop(while: { $0.isWhitespace || $0 == ";" })
            if rest.hasPrefix("--") {
                rest = rest.drop(while: { $0 != "\n" })
            } else if rest.hasPrefix("/*") {
                guard let close = rest.utf8Range(of: "*/") else { return true }
                rest = rest[close.upperBound...]
            } else {
                return rest.isEmpty
            }
        }
        return true
    }

    /// A prepared statement from the connection's cache, prepared on first use.
    ///
    /// Repeating the same SQL text never prepares again, as long as the statement stays among
    /// the `statementCacheCapacity` most recently used. A statement in use by an open cursor is
    /// never handed out twice: a fresh one is prepared instead.
    @inlinable
    public func cachedStatement(_ sql: String) throws -> Statement {
        if let last = lastStatement, !last.isBusy, last.sql.hasSameBytes(as: sql) {
            return last
        }
        return try cachedStatementSlowPath(sql)
    }

    /// A cached statement for SQL given as UTF-8 bytes. When they match the last statement used,
    /// as they do when a query builder request runs again with other values, no `String` is made.
    public func cachedStatement(utf8 sql: [UInt8]) throws -> Statement {
        try sql.withUnsafeBytes { try cachedStatement(utf8: $0) }
    }

    func cachedStatement(utf8 sql: UnsafeRawBufferPointer) throws -> Statement {
        if let last = lastStatement, !last.isBusy, Self.equal(last.sqlUTF8, sql) {
            return last
        }
        return try cachedStatementSlowPath(String(decoding: sql, as: UTF8.self))
    }

    private static func equal(_ bytes: [UInt8], _ other: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count == other.count else { return false }
        guard let otherBase = other.baseAddress, other.count > 0 else { return true }
        return bytes.withUnsafeBytes { memcmp($0.baseAddress!, otherBase, other.count) == 0 }
    }

    @usableFromInline
    func cachedStatementSlowPath(_ sql: String) throws -> Statement {
        useCounter &+= 1
        if let cached = statementCache[ExactString(sql)] {
            if cached.isBusy { return try makeStatement(sql) }
            cached.lastUsed = useCounter
            lastStatement = cached
            return cached
        }
        let statement = try makeStatement(sql)
        statement.lastUsed = useCounter
        if statementCache.count >= max(configuration.statementCacheCapacity, 1) {
            // Evict the least recently used statement that no cursor holds.
            if let victim = statementCache.values.filter({ !$0.isBusy }).min(by: { $0.lastUsed < $1.lastUsed }) {
                statementCache[ExactString(victim.sql)] = nil
            }
        }
        statementCache[ExactString(sql)] = statement
        lastStatement = statement
        return statement
    }

    /// How many statements the cache holds now.
    public var cachedStatementCount: Int { statementCache.count }

    /// Finalizes every cached statement.
    public func clearStatementCache() {
        statementCache.removeAll()
        lastStatement = nil
    }

    // MARK: Transactions

    /// How a transaction takes its locks.
    public enum TransactionKind: String, Sendable {
        /// Takes locks when the first statement needs them.
        case deferred = "DEFERRED"
        /// Takes the write lock at once, so the transaction cannot fail later with `SQLITE_BUSY`.
        case immediate = "IMMEDIATE"
        /// Like immediate; in WAL mode the same as immediate.
        case exclusive = "EXCLUSIVE"
    }

    /// Runs `body` in a transaction: commits when it returns, rolls back everything when it throws.
    ///
    /// Inside another transaction, it runs as a savepoint, so an inner failure undoes only the
    /// inner work (if the outer body catches the error).
    ///
    /// ```swift
    /// try db.transaction { db in
    ///     try db.execute("INSERT INTO lists(name) VALUES ('groceries')")
    ///     try db.execute("INSERT INTO items(list_id, title) VALUES (?, 'milk')", [DatabaseValue(db.lastInsertedRowID)])
    /// }
    /// ```
    @discardableResult
    public func transaction<T>(_ kind: TransactionKind = .deferred, _ body: (Database) throws -> T) throws -> T {
        if isInTransaction { return try savepoint(body) }
        try execute("BEGIN \(kind.rawValue) TRANSACTION")
        let result: T
        do {
            result = try body(self)
            try execute("COMMIT TRANSACTION")
        } catch {
            // SQLite rolls back by itself after some errors; a second ROLLBACK would then fail.
            if isInTransaction { try? execute("ROLLBACK TRANSACTION") }
            throw error
        }
        return result
    }

    /// Runs `body` in a savepoint: released when it returns, rolled back when it throws. Works
    /// inside and outside transactions.
    @discardableResult
    public func savepoint<T>(_ body: (Database) throws -> T) throws -> T {
        savepointDepth += 1
        defer { savepointDepth -= 1 }
        let name = "savepoint\(savepointDepth)"
        try execute("SAVEPOINT \(name)")
        let result: T
        do {
            result = try body(self)
            try execute("RELEASE SAVEPOINT \(name)")
        } catch {
            if isInTransaction {
                try? execute("ROLLBACK TO SAVEPOINT \(name)")
                try? execute("RELEASE SAVEPOINT \(name)")
            }
            throw error
        }
        return result
    }

    // MARK: Observing changes

    /// Calls `observer` after every transaction this connection commits that changed rows or the
    /// schema, with the tables and rowids it changed (a table whose schema changed is reported
    /// without rowids). Rolled-back work, including work undone by rolling back a savepoint
    /// (whether opened with ``savepoint(_:)`` or in SQL), is never reported.
    ///
    /// ```swift
    /// let token = db.addChangeObserver { changes in print("changed:", changes.tables.keys) }
    /// try db.execute("INSERT INTO items(title) VALUES ('milk')")   // prints changed: ["items"]
    /// db.removeChangeObserver(token)
    /// ```
    ///
    /// The observer runs on the connection's thread, right after the commit: keep it short and
    /// do not use the connection from it. Changes made by other connections or processes are
    /// not reported here; ``dataVersion`` tells that something changed.
    @discardableResult
    public func addChangeObserver(_ observer: @escaping (DatabaseChanges) -> Void) -> ChangeObserverToken {
        if !isTrackingChanges {
            isTrackingChanges = true
            tracker.install(on: handle)
        }
        return ChangeObserverToken(id: tracker.addObserver(observer))
    }

    /// Stops an observer added with ``addChangeObserver(_:)``.
    public func removeChangeObserver(_ token: ChangeObserverToken) {
        tracker.removeObserver(token.id)
    }

    /// SQLite's `PRAGMA data_version`: it changes when another connection, in this process or
    /// another, commits a change to the database file. Commits of this connection leave it as is.
    public var dataVersion: Int64 {
        get throws { try fetchOne(Int64.self, "PRAGMA data_version") ?? 0 }
    }
}

/// Identifies an observer added with ``Database/addChangeObserver(_:)``.
public struct ChangeObserverToken: Hashable, Sendable {
    let id: Int
}
