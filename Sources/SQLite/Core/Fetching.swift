/// Fetching rows, records and single values from SQL.
///
/// Each method takes SQL text and positional arguments, reuses the cached statement for that
/// text, and comes in three shapes: `fetchAll` (an array), `fetchOne` (the first row, or nil) and
/// `cursor` (a lazy sequence). The type decides how rows decode:
///
/// - `Row`: the raw row, with its own copy of the values, so it can be kept and sent to other tasks.
/// - `FetchableRow`: hand-written `init(row:)` over a `BorrowedRow`, the fastest.
/// - `Decodable`: coding keys name columns.
/// - `SQLiteValueConvertible` (`Int`, `String`, `Date`…): the first column of each row.
///
/// ```swift
/// let rows = try db.fetchAll("SELECT * FROM items")
/// let items = try db.fetchAll(Item.self, "SELECT * FROM items WHERE done = ?", [false])
/// let count = try db.fetchOne(Int.self, "SELECT count(*) FROM items")   // Int?
/// ```
extension Database {
    // MARK: Rows

    /// All rows of the query.
    public func fetchAll(_ sql: String, _ arguments: [SQLiteValue] = []) throws -> [Row] {
        try cachedStatement(sql).fetchAll(Row.self, arguments) { $0.copy() }
    }

    /// The first row of the query, or nil when there is none.
    public func fetchOne(_ sql: String, _ arguments: [SQLiteValue] = []) throws -> Row? {
        try cachedStatement(sql).fetchOne(Row.self, arguments) { $0.copy() }
    }

    // MARK: FetchableRow

    /// All rows, decoded with the type's `init(row:)`.
    @inlinable
    public func fetchAll<T: FetchableRow>(_ type: T.Type, _ sql: String, _ arguments: [SQLiteValue] = []) throws -> [T]
    {
        try cachedStatement(sql).fetchAll(type, arguments) { try T(row: $0) }
    }

    /// The first row decoded with the type's `init(row:)`, or nil when there is none.
    @inlinable
    public func fetchOne<T: FetchableRow>(_ type: T.Type, _ sql: String, _ arguments: [SQLiteValue] = []) throws -> T? {
        try cachedStatement(sql).fetchOne(type, arguments) { try T(row: $0) }
    }

    /// A lazy cursor over the rows, decoded with `init(row:)`.
    public func cursor<T: FetchableRow>(_ type: T.Type, _ sql: String, _ arguments: [SQLiteValue] = []) throws
        -> Cursor<T>
    {
        try Cursor(statement: cachedStatement(sql), arguments: arguments) { try T(row: $0) }
    }

    // MARK: Decodable

    /// All rows, decoded through `Decodable`: each coding key names a column.
    @inlinable
    public func fetchAll<T: Decodable>(_ type: T.Type, _ sql: String, _ arguments: [SQLiteValue] = []) throws -> [T] {
        try cachedStatement(sql).fetchAllDecodable(type, arguments)
    }

    /// The first row decoded through `Decodable`, or nil when there is none.
    @inlinable
    public func fetchOne<T: Decodable>(_ type: T.Type, _ sql: String, _ arguments: [SQLiteValue] = []) throws -> T? {
        try cachedStatement(sql).fetchOneDecodable(type, arguments)
    }

    /// A lazy cursor over the rows, decoded through `Decodable`.
    public func cursor<T: Decodable>(_ type: T.Type, _ sql: String, _ arguments: [SQLiteValue] = []) throws -> Cursor<T>
    {
        let statement = try cachedStatement(sql)
        let decoder = statement.decodableDecoder(type)
        return try Cursor(statement: statement, arguments: arguments, onFinish: decoder.finish) {
            try decoder.decode(T.self, row: $0)
        }
    }

    // MARK: Types that are both: FetchableRow wins, because it is faster.

    /// All rows, decoded with the type's `init(row:)`.
    @inlinable
    public func fetchAll<T: FetchableRow & Decodable>(_ type: T.Type, _ sql: String, _ arguments: [SQLiteValue] = [])
        throws -> [T]
    {
        try cachedStatement(sql).fetchAll(type, arguments) { try T(row: $0) }
    }

    /// The first row decoded with the type's `init(row:)`, or nil.
    @inlinable
    public func fetchOne<T: FetchableRow & Decodable>(_ type: T.Type, _ sql: String, _ arguments: [SQLiteValue] = [])
        throws -> T?
    {
        try cachedStatement(sql).fetchOne(type, arguments) { try T(row: $0) }
    }

    // MARK: Single values

    /// The first column of every row, converted to `T`. NULL fails unless `T` is optional.
    ///
    /// ```swift
    /// let titles = try db.fetchAll(String.self, "SELECT title FROM items ORDER BY title")
    /// ```
    @inlinable
    public func fetchAll<T: SQLiteValueConvertible>(_ type: T.Type, _ sql: String, _ arguments: [SQLiteValue] = [])
        throws -> [T]
    {
        try cachedStatement(sql).fetchAll(type, arguments) { try $0[0] as T }
    }

    /// The first column of the first row, converted to `T`; nil when there is no row or the value is NULL.
    @inlinable
    public func fetchOne<T: SQLiteValueConvertible>(_ type: T.Type, _ sql: String, _ arguments: [SQLiteValue] = [])
        throws -> T?
    {
        try cachedStatement(sql).fetchOne(T?.self, arguments, decode: Statement.optionalFirstColumn) ?? nil
    }

    /// `Int`, `String` and the like are also `Decodable`; they decode as single values.
    @inlinable
    public func fetchAll<T: SQLiteValueConvertible & Decodable>(
        _ type: T.Type, _ sql: String, _ arguments: [SQLiteValue] = []
    ) throws -> [T] {
        try cachedStatement(sql).fetchAll(type, arguments) { try $0[0] as T }
    }

    /// `Int`, `String` and the like are also `Decodable`; they decode as single values.
    @inlinable
    public func fetchOne<T: SQLiteValueConvertible & Decodable>(
        _ type: T.Type, _ sql: String, _ arguments: [SQLiteValue] = []
    ) throws -> T? {
        try cachedStatement(sql).fetchOne(T?.self, arguments, decode: Statement.optionalFirstColumn) ?? nil
    }

    /// A lazy cursor over rows decoded with `init(row:)`.
    public func cursor<T: FetchableRow & Decodable>(_ type: T.Type, _ sql: String, _ arguments: [SQLiteValue] = [])
        throws -> Cursor<T>
    {
        try Cursor(statement: cachedStatement(sql), arguments: arguments) { try T(row: $0) }
    }

    /// A lazy cursor over the first column of each row.
    public func cursor<T: SQLiteValueConvertible & Decodable>(
        _ type: T.Type, _ sql: String, _ arguments: [SQLiteValue] = []
    ) throws -> Cursor<T> {
        try Cursor(statement: cachedStatement(sql), arguments: arguments) { try $0[0] as T }
    }

    /// A lazy cursor over the first column of each row.
    public func cursor<T: SQLiteValueConvertible>(_ type: T.Type, _ sql: String, _ arguments: [SQLiteValue] = []) throws
        -> Cursor<T>
    {
        try Cursor(statement: cachedStatement(sql), arguments: arguments) { try $0[0] as T }
    }
}

extension Statement {
    /// Runs the statement and decodes every row with `decode`. The row passed to `decode` reads
    /// from the statement directly and is valid only during the call.
    @inlinable
    public func fetchAll<T>(_ type: T.Type, _ arguments: [SQLiteValue] = [], decode: (BorrowedRow) throws -> T) throws
        -> [T]
    {
        precondition(!isBusy, "this statement is being iterated by a cursor")
        try bind(arguments)
        return try fetchAllBound(decode: decode)
    }

    /// Runs the statement and decodes the first row with `decode`, or returns nil when there is none.
    @inlinable
    public func fetchOne<T>(_ type: T.Type, _ arguments: [SQLiteValue] = [], decode: (BorrowedRow) throws -> T) throws
        -> T?
    {
        precondition(!isBusy, "this statement is being iterated by a cursor")
        try bind(arguments)
        return try fetchOneBound(decode: decode)
    }

    /// ``fetchAll(_:_:decode:)`` with the arguments already bound.
    @inlinable @inline(__always)
    func fetchAllBound<T>(decode: (BorrowedRow) throws -> T) throws -> [T] {
        defer { reset() }
        // The row is made after the first step, which may have found the statement prepared
        // again with other columns.
        guard try step() else { return [] }
        var row = BorrowedRow(statement: self)
        var result: [T] = []
        while true {
            result.append(try decode(row))
            guard try step() else { return result }
            row.advance()
        }
    }

    /// ``fetchOne(_:_:decode:)`` with the arguments already bound.
    @inlinable @inline(__always)
    func fetchOneBound<T>(decode: (BorrowedRow) throws -> T) throws -> T? {
        defer { reset() }
        guard try step() else { return nil }
        return try decode(BorrowedRow(statement: self))
    }

    /// A decoder for `T` with this statement's plan. Call `finish()` on it when the fetch ends.
    @usableFromInline
    func decodableDecoder<T: Decodable>(_ type: T.Type) -> RowDecoder {
        let key = ObjectIdentifier(type)
        let plan: RowDecodingPlan
        if let existing = decodingPlans[key] {
            plan = existing
        } else {
            plan = RowDecodingPlan()
            decodingPlans[key] = plan
        }
        return RowDecoder(statement: self, plan: plan)
    }

    /// All rows, decoded through `Decodable`. Inlined, so that the loop and `init(from:)` are
    /// specialized for `T` in the caller's module.
    @inlinable
    func fetchAllDecodable<T: Decodable>(_ type: T.Type, _ arguments: [SQLiteValue]) throws -> [T] {
        precondition(!isBusy, "this statement is being iterated by a cursor")
        try bind(arguments)
        return try fetchAllDecodableBound(type)
    }

    /// The first row decoded through `Decodable`, or nil.
    @inlinable
    func fetchOneDecodable<T: Decodable>(_ type: T.Type, _ arguments: [SQLiteValue]) throws -> T? {
        precondition(!isBusy, "this statement is being iterated by a cursor")
        try bind(arguments)
        return try fetchOneDecodableBound(type)
    }

    /// ``fetchAllDecodable(_:_:)`` with the arguments already bound.
    @inlinable
    func fetchAllDecodableBound<T: Decodable>(_ type: T.Type) throws -> [T] {
        let decoder = decodableDecoder(type)
        defer { decoder.finish() }
        return try fetchAllBound { try decoder.decode(T.self, row: $0) }
    }

    /// ``fetchOneDecodable(_:_:)`` with the arguments already bound.
    @inlinable
    func fetchOneDecodableBound<T: Decodable>(_ type: T.Type) throws -> T? {
        let decoder = decodableDecoder(type)
        defer { decoder.finish() }
        return try fetchOneBound { try decoder.decode(T.self, row: $0) }
    }

    /// The first column, converted; NULL gives nil.
    @inlinable
    static func optionalFirstColumn<T: SQLiteValueConvertible>(_ row: BorrowedRow) throws -> T? {
        try BorrowedRow.optionalFirstColumn(row)
    }
}
