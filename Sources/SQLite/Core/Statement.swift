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
    /// How many columns each row has.
    public let columnCount: Int
    /// Advances on every step, so a ``Row`` that reads from this statement can tell whether it
    /// still points at its own row. Kept behind a pointer because it is read for every column
    /// decoded, and a class's stored `var` pays a dynamic exclusivity check on each access.
    @usableFromInline let generationPointer: UnsafeMutablePointer<UInt64>

    @inlinable var generation: UInt64 { generationPointer.pointee }
    /// Set while a cursor iterates, so the statement cache hands out a fresh statement instead of
    /// resetting one in use.
    @usableFromInline var isBusy = false
    var lastUsed: UInt64 = 0
    /// Decoding plans for `Decodable` types, keyed by type, so coding keys resolve to column
    /// indexes once per statement.
    var decodingPlans: [ObjectIdentifier: RowDecodingPlan] = [:]

    /// The tables and columns the statement reads, recorded when it was prepared.
    public let readRegion: DatabaseRegion
    /// The tables the statement inserts into, updates or deletes from, or whose schema it changes
    /// (lowercased).
    public let writtenTables: Set<String>
    /// What the statement does to transactions and savepoints.
    @usableFromInline let control: TransactionControl?
    /// True when the change tracker must hear of each run: the statement writes, or controls
    /// transactions.
    @usableFromInline let concernsTracker: Bool
    @usableFromInline let tracker: ChangeTracker

    init(
        sql: String, handle: OpaquePointer, readRegion: DatabaseRegion, writtenTables: Set<String>,
        control: TransactionControl?, tracker: ChangeTracker
    ) {
        self.handle = handle
        self.sql = sql
        self.sqlUTF8 = Array(sql.utf8)
        self.readRegion = readRegion
        self.writtenTables = writtenTables
        self.control = control
        self.concernsTracker = !writtenTables.isEmpty || control != nil
        self.tracker = tracker
        self.parameterCount = Int(sqlite3_bind_parameter_count(handle))
        self.columnCount = Int(sqlite3_column_count(handle))
        generationPointer = .allocate(capacity: 1)
        generationPointer.initialize(to: 0)
    }

    deinit {
        sqlite3_finalize(handle)
        generationPointer.deallocate()
    }

    /// The names of the result columns, in order.
    public private(set) lazy var columnNames: [String] = (0..<columnCount).map {
        String(cString: sqlite3_column_name(handle, Int32($0)))
    }

    /// Column name → index; the first column wins when names repeat, as in SQLite itself.
    private(set) lazy var columnIndexes: [String: Int] = {
        var indexes: [String: Int] = [:]
        for (index, name) in columnNames.enumerated() where indexes[name] == nil {
            indexes[name] = index
        }
        return indexes
    }()

    /// The index of the named column, matched exactly first and then ignoring case as SQL does.
    public func columnIndex(named name: String) -> Int? {
        if let index = columnIndexes[name] { return index }
        let lowered = name.lowercased()
        return columnNames.firstIndex { $0.lowercased() == lowered }
    }

    // MARK: Binding

    /// Binds positional arguments, after checking that their number matches the statement's.
    @inlinable
    public func bind(_ arguments: [SQLiteValue]) throws {
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
    public func bind(named arguments: [String: SQLiteValue]) throws {
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
    func bind(_ value: SQLiteValue, at index: Int32) throws {
        let code: Int32
        switch value {
        case .null: code = sqlite3_bind_null(handle, index)
        case .integer(let int): code = sqlite3_bind_int64(handle, index, int)
        case .real(let double): code = sqlite3_bind_double(handle, index, double)
        case .text(var text):
            code = text.withUTF8 { bytes in
                // An empty buffer may have no base address, and SQLite binds a NULL pointer as NULL.
                guard let base = bytes.baseAddress else { return sqlite3_bind_text(handle, index, "", 0, nil) }
                return sqlite3_bind_text(handle, index, base, Int32(bytes.count), SQLITE_TRANSIENT)
            }
        case .blob(let bytes):
            code = bytes.withUnsafeBytes { raw in
                sqlite3_bind_blob(
                    handle, index, raw.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(raw.count),
                    SQLITE_TRANSIENT)
            }
        }
        if code != SQLITE_OK { throw currentError(code) }
    }

    // MARK: Running

    /// Steps once. Returns true when a row is ready, false when the statement is done.
    @inlinable
    public func step() throws -> Bool {
        let tracking = tracker.isActive
        if tracking && concernsTracker { try tracker.statementWillStep(self) }
        let code = sqlite3_step(handle)
        generationPointer.pointee &+= 1
        if code == SQLITE_ROW { return true }
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
        // A statement with RETURNING commits when it is reset, not when its last row is read.
        if tracker.isActive { tracker.statementDidFinish(connection: sqlite3_db_handle(handle)) }
    }

    /// Runs the statement to completion with these arguments, discarding any rows.
    @inlinable
    public func execute(_ arguments: [SQLiteValue] = []) throws {
        try bind(arguments)
        defer { reset() }
        while try step() {}
    }

    // MARK: Reading the current row

    /// The value of column `index` of the current row.
    @inlinable
    public func value(at index: Int) -> SQLiteValue {
        SQLiteValue(sqliteStatement: handle, column: Int32(index))
    }

    /// True when column `index` of the current row is NULL.
    @inlinable
    public func isNull(at index: Int) -> Bool {
        sqlite3_column_type(handle, Int32(index)) == SQLITE_NULL
    }

    @usableFromInline
    func currentError(_ code: Int32) -> SQLiteError {
        SQLiteError(connection: sqlite3_db_handle(handle), code: code, sql: sql)
    }
}

extension SQLiteError {
    /// Reads the connection's current message and extended code.
    init(connection: OpaquePointer?, code: Int32, sql: String?) {
        let message =
            connection.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
            ?? String(cString: sqlite3_errstr(code))
        let extended = connection.map { sqlite3_extended_errcode($0) } ?? code
        self.init(code: code & 0xFF, extendedCode: extended, message: message, sql: sql)
    }
}

/// SQLite's `SQLITE_TRANSIENT`, a macro that Swift cannot import: it tells SQLite to copy the bytes.
@usableFromInline
let SQLITE_TRANSIENT = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
