/// Fetching rows, records and single values from SQL.
///
/// Each method takes SQL text and positional arguments, reuses the cached statement for that
/// text, and comes in three shapes: `fetchAll` (an array), `fetchOne` (the first row, or nil) and
/// `cursor` (a lazy sequence). Rows decode into any `FetchableRow`, whose conformance says how:
///
/// - `Row`: the raw row, with its own copy of the values, so it can be kept and sent to other tasks.
/// - A hand-written `init(row:)` over a `BorrowedRow`, the fastest.
/// - `Decodable`'s default `init(row:)`: coding keys name columns.
/// - `DatabaseValueConvertible` (`Int`, `String`, `Date`…): the first column of each row; `fetchOne`
///   is nil when it is NULL.
///
/// ```swift
/// let rows = try db.fetchAll("SELECT * FROM items")
/// let items = try db.fetchAll(Item.self, "SELECT * FROM items WHERE done = ?", [false])
/// let count = try db.fetchOne(Int.self, "SELECT count(*) FROM items")   // Int?
/// ```
extension Database {
    /// All rows of the query.
    public func fetchAll(_ sql: String, _ arguments: [DatabaseValue] = []) throws -> [Row] {
        try cachedStatement(sql).fetchAll(Row.self, arguments) { $0.copy() }
    }

    /// The first row of the query, or nil when there is none.
    public func fetchOne(_ sql: String, _ arguments: [DatabaseValue] = []) throws -> Row? {
        try cachedStatement(sql).fetchOne(Row.self, arguments) { $0.copy() }
    }

    /// All rows, each decoded as `T`.
    @inlinable
    public func fetchAll<T: FetchableRow>(_ type: T.Type, _ sql: String, _ arguments: [DatabaseValue] = []) throws
        -> [T]
    {
        try cachedStatement(sql).fetchAll(type, arguments) { try $0.decode(T.self) }
    }

    /// The first row decoded as `T` (see `FetchableRow.init(firstRow:)`), or nil when there is none.
    @inlinable
    public func fetchOne<T: FetchableRow>(_ type: T.Type, _ sql: String, _ arguments: [DatabaseValue] = []) throws -> T?
    {
        try cachedStatement(sql).fetchOne(T?.self, arguments) { try T(firstRow: $0) } ?? nil
    }

    /// A lazy cursor over the rows, each decoded as `T`.
    public func cursor<T: FetchableRow>(_ type: T.Type, _ sql: String, _ arguments: [DatabaseValue] = []) throws
        -> Cursor<T>
    {
        try Cursor(statement: cachedStatement(sql), arguments: arguments) { try $0.decode(T.self) }
    }
}

extension Statement {
    /// Runs the statement and decodes every row with `decode`. The row passed to `decode` reads
    /// from the statement directly and is valid only during the call.
    @inlinable
    public func fetchAll<T>(_ type: T.Type, _ arguments: [DatabaseValue] = [], decode: (BorrowedRow) throws -> T) throws
        -> [T]
    {
        precondition(!isBusy, "this statement is being iterated by a cursor")
        try bind(arguments)
        return try fetchAllBound(decode: decode)
    }

    /// Runs the statement and decodes the first row with `decode`, or returns nil when there is none.
    @inlinable
    public func fetchOne<T>(_ type: T.Type, _ arguments: [DatabaseValue] = [], decode: (BorrowedRow) throws -> T) throws
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
}
