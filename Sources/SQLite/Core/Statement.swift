import CSQLite

/// A prepared SQL statement: one compiled program that runs many times with new bindings.
///
/// Most code never sees a `Statement`: ``Database/execute(_:_:)`` and the `fetch` methods take
/// SQL text and reuse statements from the connection's cache. Prepare one yourself to hold it
/// across calls:
///
/// ```swift
/// let insert = try db.cachedStatement("INSERT INTO items(title) VALUES (?)")
/// for title in titles { try insert.execute([.text(title)]) }
/// ```
///
/// A statement belongs to the connection that prepared it and is used on that connection's
/// thread only, which is why it is not `Sendable`.
public final class Statement {
    @usableFromInline let handle: OpaquePointer
    /// The SQL text, as prepared.
    public let sql: String
    /// The SQL text's UTF-8 bytes, so a caller that renders SQL to bytes can find its cached
    /// statement without making a `String`.
    let sqlUTF8: [UInt8]
    /// How many `?`, `?NNN`, `:name`, `@name` or `$name` parameters the statement takes.
    public let parameterCount: Int
    // Unchecked, these two: one thread uses a statement at a time, the count is read for every row
    // fetched, and a checked access to the names would be paid on every run of a write.
    /// How many columns each row has.
    ///
    /// SQLite prepares a statement again by itself when the schema changed since it last ran,
    /// for example when another connection added a column to the table of a `SELECT *`. The
    /// column count and names follow from the first step of that run on.
    @exclusivity(unchecked) public private(set) var columnCount: Int
    /// The names of the result columns, in order.
    @exclusivity(unchecked) public private(set) var columnNames: [String]
    /// Advances on every step, so a `BorrowedRow` that reads from this statement can tell whether it
    /// still points at its own row. Kept behind a pointer because it is read for every column
    /// decoded, and a class's stored `var` pays a dynamic exclusivity check on each access.
    @usableFromInline let generationPointer: UnsafeMutablePointer<UInt64>

    @inlinable var generation: UInt64 { generationPointer.pointee }
    /// Set while a cursor iterates, so the statement cache hands out a fresh statement instead of
    /// resetting one in use.
    @usableFromInline var isBusy = false
    var lastUsed: UInt64 = 0
    // These three are only used on the connection's thread: dynamic exclusivity checks would
    // cost more than the fetch's own bookkeeping.
    /// The decoders of the `Decodable` types the statement decoded, one per type, so that coding
    /// keys resolve to column indexes once per statement and a fetch allocates no decoder.
    @exclusivity(unchecked) var decoders: [RowDecoder] = []
    /// The decoder of the type decoded last, which the next row nearly always decodes again; one
    /// of `decoders`, which holds it.
    @exclusivity(unchecked) unowned(unsafe) var lastDecoder: RowDecoder?
    /// Set when a row of this run was decoded through `Decodable`, so that the reset looks for
    /// decoders that user code kept past it.
    @usableFromInline @exclusivity(unchecked) var decodedInRun = false

    /// The tables and columns the statement reads, recorded when it was prepared, and again
    /// whenever SQLite prepared it again after a schema change.
    public var readRegion: DatabaseRegion {
        // Recorded when asked rather than when SQLite prepared the statement again: preparing
        // the SQL once more replaces the connection's error, which the run may still report.
        if readRegionIsStale {
            readRegionIsStale = false
            if let region = readRegionNow() { storedReadRegion = region }
        }
        return storedReadRegion
    }
    private var storedReadRegion: DatabaseRegion
    /// Set when SQLite prepared the statement again since its region was recorded.
    private var readRegionIsStale = false
    /// The tables the statement inserts into, updates or deletes from, or whose schema it changes
    /// (ASCII-lowercased, as SQLite matches names).
    public let writtenTables: Set<String>
    /// True when the statement changes a schema, which SQLite does not report row by row.
    let changesSchema: Bool
    /// What the statement does to transactions and savepoints.
    @usableFromInline let control: TransactionControl?
    /// True when the statement may change the database (SQLite's `sqlite3_stmt_readonly`), which
    /// a read refuses.
    let writes: Bool
    /// True when the change tracker must hear of each run: the statement writes, or controls
    /// transactions.
    @usableFromInline let concernsTracker: Bool
    @usableFromInline let tracker: ChangeTracker
    @usableFromInline let writeGuard: WriteGuard
    /// True when the next step starts a run: only then can SQLite have prepared the statement
    /// again, so only then is it worth asking.
    @usableFromInline @exclusivity(unchecked) var startsRun = true
    /// SQLite's count of the times it prepared the statement again, when the columns were read.
    private var knownReprepareCount: Int32 = 0

    init(
        sql: String, handle: OpaquePointer, readRegion: DatabaseRegion, writtenTables: Set<String>,
        control: TransactionControl?, tracker: ChangeTracker, writeGuard: WriteGuard, changesSchema: Bool = false
    ) {
        self.changesSchema = changesSchema
        self.handle = handle
        self.sql = sql
        self.sqlUTF8 = Array(sql.utf8)
        self.storedReadRegion = readRegion
        self.writtenTables = writtenTables
        self.control = control
        self.writes = sqlite3_stmt_readonly(handle) == 0
        self.concernsTracker = !writtenTables.isEmpty || control != nil || writes
        self.tracker = tracker
        self.writeGuard = writeGuard
        self.parameterCount = Int(sqlite3_bind_parameter_count(handle))
        (columnCount, columnNames) = Self.columns(of: handle)
        generationPointer = .allocate(capacity: 1)
        generationPointer.initialize(to: 0)
    }

    deinit {
        sqlite3_finalize(handle)
        generationPointer.deallocate()
    }

    private static func columns(of handle: OpaquePointer) -> (count: Int, names: [String]) {
        let count = sqlite3_column_count(handle)
        return (Int(count), (0..<count).map { String(cString: sqlite3_column_name(handle, $0)) })
    }

    private var storedColumnIndexes: [ExactString: Int]?

    /// Column name (by its bytes) → index; the first column wins when names repeat, as in SQLite
    /// itself.
    var columnIndexes: [ExactString: Int] {
        if let storedColumnIndexes { return storedColumnIndexes }
        var indexes: [ExactString: Int] = [:]
        for (index, name) in columnNames.enumerated() where indexes[ExactString(name)] == nil {
            indexes[ExactString(name)] = index
        }
        storedColumnIndexes = indexes
        return indexes
    }

    /// The index of the named column, matched exactly first and then ignoring the case of ASCII
    /// letters, as SQLite matches names.
    public func columnIndex(named name: String) -> Int? {
        if let index = columnIndexes[ExactString(name)] { return index }
        return columnNames.firstIndex { $0.sqliteNameMatches(name) }
    }

    // MARK: Binding

    /// Binds positional arguments, after checking that their number matches the statement's.
    @inlinable
    public func bind(_ arguments: [DatabaseValue]) throws {
        guard arguments.count == parameterCount else {
            throw argumentCountError(given: arguments.count)
        }
        var index: Int32 = 1
        for argument in arguments {
            try bind(argument, at: index)
            index += 1
        }
    }

    /// Binds arguments by parameter name (`:name`, `@name` or `$name`; give names without the prefix).
    ///
    /// Every parameter must have an argument, and every argument a parameter.
    public func bind(named arguments: [String: DatabaseValue]) throws {
        var names: Set<String> = []
        for index in 0..<parameterCount {
            guard let cName = sqlite3_bind_parameter_name(handle, Int32(index + 1)) else {
                throw SQLiteError(
                    code: SQLITE_RANGE, message: "parameter \(index + 1) is positional; pass positional arguments",
                    sql: sql)
            }
            let name = String(String(cString: cName).dropFirst())
            guard let value = arguments[name] else {
                throw SQLiteError(code: SQLITE_RANGE, message: "missing argument for parameter :\(name)", sql: sql)
            }
            try bind(value, at: Int32(index + 1))
            names.insert(name)
        }
        let extra = Set(arguments.keys).subtracting(names).sorted()
        if !extra.isEmpty {
            throw SQLiteError(
                code: SQLITE_RANGE, message: "no parameter named " + extra.map { ":\($0)" }.joined(separator: ", "),
                sql: sql)
        }
    }

    @usableFromInline
    func argumentCountError(given: Int) -> SQLiteError {
        SQLiteError(
            code: SQLITE_RANGE,
            message: "wrong number of arguments: the statement takes \(parameterCount), \(given) given",
            sql: sql)
    }

    @inlinable
    func bind(_ value: DatabaseValue, at index: Int32) throws {
        let code: Int32
        switch value {
        case .null: code = sqlite3_bind_null(handle, index)
        case .integer(let int): code = sqlite3_bind_int64(handle, index, int)
        case .real(let double): code = sqlite3_bind_double(handle, index, double)
        case .text(var text):
            try text.withUTF8 { try bind(text: $0, at: index) }
            return
        case .blob(let bytes):
            try bytes.withUnsafeBytes { try bind(blob: $0, at: index) }
            return
        }
        if code != SQLITE_OK { throw currentError(code) }
    }

    /// Binds UTF-8 text. The 64-bit call lets SQLite compare any length with its limit and
    /// answer `SQLITE_TOOBIG`, where a 32-bit length could not even represent 2 GiB.
    @inlinable
    func bind(text bytes: UnsafeBufferPointer<UInt8>, at index: Int32) throws {
        // An empty buffer may have no base address, and SQLite binds a NULL pointer as NULL.
        let code =
            if let base = bytes.baseAddress {
                sqlite3_bind_text64(handle, index, base, UInt64(bytes.count), SQLITE_TRANSIENT, UInt8(SQLITE_UTF8))
            } else {
                sqlite3_bind_text(handle, index, "", 0, nil)
            }
        if code != SQLITE_OK { throw bindError(code, at: index, byteCount: bytes.count) }
    }

    /// Binds bytes as a blob; see ``bind(text:at:)`` for why the 64-bit call.
    @inlinable
    func bind(blob bytes: UnsafeRawBufferPointer, at index: Int32) throws {
        // A NULL pointer would bind NULL; any non-NULL pointer with a zero length binds an empty blob.
        let base = bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1)
        let code = sqlite3_bind_blob64(handle, index, base, UInt64(bytes.count), SQLITE_TRANSIENT)
        if code != SQLITE_OK { throw bindError(code, at: index, byteCount: bytes.count) }
    }

    @usableFromInline
    func bindError(_ code: Int32, at index: Int32, byteCount: Int) -> SQLiteError {
        var error = currentError(code)
        if code == SQLITE_TOOBIG, let connection = sqlite3_db_handle(handle) {
            let limit = sqlite3_limit(connection, SQLITE_LIMIT_LENGTH, -1)
            error.message +=
                ": parameter \(index) is \(byteCount) bytes, and the connection's limit for a text or blob is"
                + " \(limit) bytes (SQLITE_LIMIT_LENGTH)"
        }
        return error
    }

    // MARK: Running

    /// Steps once. Returns true when a row is ready, false when the statement is done.
    @inlinable
    public func step() throws -> Bool {
        let tracking = tracker.isActive
        if concernsTracker {
            if writeGuard.isEngaged { try writeGuard.check(self) }
            if tracking { tracker.statementWillStep(self) }
        }
        let code = sqlite3_step(handle)
        generationPointer.pointee &+= 1
        if startsRun { runDidStart() }
        if code == SQLITE_ROW { return true }
        // Stepping again, reset or not, starts a new run.
        startsRun = true
        if tracking {
            if control != nil && code == SQLITE_DONE { tracker.statementDidRun(self) }
            tracker.statementDidFinish(connection: sqlite3_db_handle(handle))
        }
        if code == SQLITE_DONE { return false }
        throw currentError(code)
    }

    /// Rewinds the statement so it can run again; bindings are kept.
    @inlinable
    public func reset() {
        sqlite3_reset(handle)
        generationPointer.pointee &+= 1
        startsRun = true
        if decodedInRun { endDecodingRun() }
        // A statement with RETURNING commits when it is reset, not when its last row is read.
        if tracker.isActive { tracker.statementDidFinish(connection: sqlite3_db_handle(handle)) }
    }

    /// Called on the first step of a run, after SQLite has prepared the statement again if the
    /// schema changed.
    @usableFromInline
    func runDidStart() {
        startsRun = false
        let reprepareCount = sqlite3_stmt_status(handle, SQLITE_STMTSTATUS_REPREPARE, 0)
        guard reprepareCount != knownReprepareCount else { return }
        knownReprepareCount = reprepareCount
        // What the statement reads may change while its columns do not: a view defined again
        // over another table keeps its column names.
        readRegionIsStale = true
        let (count, names) = Self.columns(of: handle)
        guard names != columnNames else { return }
        columnCount = count
        columnNames = names
        storedColumnIndexes = nil
        for decoder in decoders { decoder.plan.reset() }
    }

    /// What the statement reads now, recorded by preparing its SQL once more; nil when it does not
    /// prepare.
    private func readRegionNow() -> DatabaseRegion? {
        var copy: OpaquePointer?
        let (code, recording) = tracker.recorder.record {
            sql.withCString { sqlite3_prepare_v2(sqlite3_db_handle(handle), $0, -1, &copy, nil) }
        }
        sqlite3_finalize(copy)
        return code == SQLITE_OK ? recording.readRegion : nil
    }

    /// Runs the statement to completion with these arguments, discarding any rows.
    @inlinable
    public func execute(_ arguments: [DatabaseValue] = []) throws {
        try bind(arguments)
        defer { reset() }
        while try step() {}
    }

    // MARK: Reading the current row

    /// The value of column `index` of the current row.
    @inlinable
    public func value(at index: Int) -> DatabaseValue {
        // SQLite reads a column out of range as NULL; clamping keeps a huge index out of range.
        DatabaseValue(sqliteStatement: handle, column: Int32(clamping: index))
    }

    /// True when column `index` of the current row is NULL.
    @inlinable
    public func isNull(at index: Int) -> Bool {
        sqlite3_column_type(handle, Int32(clamping: index)) == SQLITE_NULL
    }

    @usableFromInline
    func currentError(_ code: Int32) -> SQLiteError {
        SQLiteError(connection: sqlite3_db_handle(handle), code: code, sql: sql)
    }
}

extension SQLiteError {
    /// Reads the connection's current message and extended code. Errors about the database
    /// file (corrupt, not a database, I/O, locked, read-only…) name the file.
    init(connection: OpaquePointer?, code: Int32, sql: String?) {
        var message =
            connection.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
            ?? String(cString: sqlite3_errstr(code))
        let extended = connection.map { sqlite3_extended_errcode($0) } ?? code
        if extended == Self.readOnlyRollback { message += ": " + Self.hotJournalExplanation }
        var path: String?
        if let connection, Self.fileErrorCodes.contains(code & 0xFF),
            let name = sqlite3_db_filename(connection, "main"),
            name.pointee != 0
        {
            path = String(cString: name)
        }
        self.init(code: code & 0xFF, extendedCode: extended, message: message, sql: sql, path: path)
    }

    /// `SQLITE_READONLY_ROLLBACK`, which Swift does not import.
    static let readOnlyRollback: Int32 = SQLITE_READONLY | (3 << 8)

    static let hotJournalExplanation =
        "an interrupted write left a hot journal (the -journal file next to the database) that must be rolled back"
        + " before the database can be read, and this connection has no write access to the file and its folder"
        + " to do it. Open the database once with write access (as a user who may write it, or without a read-only"
        + " mode), which rolls the journal back; then read-only opens work again"

    private static let fileErrorCodes: Set<Int32> = [
        SQLITE_PERM, SQLITE_BUSY, SQLITE_READONLY, SQLITE_IOERR, SQLITE_CORRUPT, SQLITE_FULL, SQLITE_CANTOPEN,
        SQLITE_PROTOCOL, SQLITE_NOTADB,
    ]
}

/// SQLite's `SQLITE_TRANSIENT`, a macro that Swift cannot import: it tells SQLite to copy the bytes.
/// Computed, not stored: a global constant is read through a lazy initializer on each use.
@inlinable
var SQLITE_TRANSIENT: sqlite3_destructor_type { unsafeBitCast(-1, to: sqlite3_destructor_type.self) }
