import SQLCore

/// A connection that query-builder requests run on, whatever the database behind it: SQLite's
/// `Database`, or PostgreSQL's connection while it refetches live values.
///
/// A ``FetchKeyRequest`` whose `fetch` takes `any SQLConnection` runs on every source:
///
/// ```swift
/// struct OpenItems: FetchKeyRequest {
///     func fetch(_ db: any SQLConnection) throws -> [Item] {
///         try Item.all().filter(Column("done") == false).fetchAll(db)
///     }
/// }
/// ```
///
/// Requests are rendered in the connection's own SQL dialect, with every value bound. Rows decode
/// with `FetchableRow`, with `Decodable` (coding keys name the columns), or as single
/// `SQLiteValueConvertible` values, as on SQLite.
///
/// The package's sources are the only conforming types: the requirement is how a source runs a
/// request, and is not called directly.
public protocol SQLConnection: AnyObject {
    /// Runs `request`, shaped by `shape`, and decodes each of its rows with `decode`.
    func _fetch<RowValue, T>(
        _ request: QueryInterfaceRequest<RowValue>, _ shape: SQLFetchShape, _ decode: (BorrowedRow) throws -> T
    ) throws -> [T]

    /// Runs `request`, shaped by `shape`, and decodes each of its rows through `Decodable`.
    func _fetchDecodable<RowValue: Decodable>(
        _ request: QueryInterfaceRequest<RowValue>, _ shape: SQLFetchShape
    ) throws -> [RowValue]
}

/// Which rows of a request a ``SQLConnection`` fetches.
public enum SQLFetchShape: Sendable {
    /// Every row of the request.
    case all
    /// The first row only: `LIMIT 1` unless the request has its own limit.
    case one
    /// One row and column: how many rows the request matches.
    case count
}

// The query builder's fetches on any source.

extension QueryInterfaceRequest where RowValue: FetchableRow {
    /// All matching rows, decoded with `init(row:)`, on any source.
    public func fetchAll(_ db: any SQLConnection) throws -> [RowValue] {
        try db._fetch(self, .all) { try RowValue(row: $0) }
    }

    /// The first matching row, or nil, on any source.
    public func fetchOne(_ db: any SQLConnection) throws -> RowValue? {
        try db._fetch(self, .one) { try RowValue(row: $0) }.first
    }
}

extension QueryInterfaceRequest where RowValue: Decodable {
    /// All matching rows, decoded through `Decodable`, on any source.
    public func fetchAll(_ db: any SQLConnection) throws -> [RowValue] {
        try db._fetchDecodable(self, .all)
    }

    /// The first matching row, decoded through `Decodable`, or nil, on any source.
    public func fetchOne(_ db: any SQLConnection) throws -> RowValue? {
        try db._fetchDecodable(self, .one).first
    }
}

// Types that are both decode as SQLite's fetches decode them: a record by its `init(row:)`, a
// value from its first column.

extension QueryInterfaceRequest where RowValue: FetchableRow & Decodable {
    /// All matching rows, decoded with `init(row:)`, which is faster than `Decodable`.
    public func fetchAll(_ db: any SQLConnection) throws -> [RowValue] {
        try db._fetch(self, .all) { try RowValue(row: $0) }
    }

    /// The first matching row, decoded with `init(row:)`, or nil.
    public func fetchOne(_ db: any SQLConnection) throws -> RowValue? {
        try db._fetch(self, .one) { try RowValue(row: $0) }.first
    }
}

extension QueryInterfaceRequest where RowValue: SQLiteValueConvertible & Decodable {
    /// The first column of every matching row, on any source.
    public func fetchAll(_ db: any SQLConnection) throws -> [RowValue] {
        try db._fetch(self, .all) { try $0[0] as RowValue }
    }

    /// The first column of the first matching row; nil when there is no row or it is NULL.
    public func fetchOne(_ db: any SQLConnection) throws -> RowValue? {
        try db._fetch(self, .one) { try BorrowedRow.optionalFirstColumn($0) as RowValue? }.first ?? nil
    }
}

extension QueryInterfaceRequest where RowValue: SQLiteValueConvertible {
    /// The first column of every matching row, on any source.
    public func fetchAll(_ db: any SQLConnection) throws -> [RowValue] {
        try db._fetch(self, .all) { try $0[0] as RowValue }
    }

    /// The first column of the first matching row; nil when there is no row or it is NULL.
    public func fetchOne(_ db: any SQLConnection) throws -> RowValue? {
        try db._fetch(self, .one) { try BorrowedRow.optionalFirstColumn($0) as RowValue? }.first ?? nil
    }
}

extension QueryInterfaceRequest {
    /// How many rows `fetchAll(_:)` would return, on any source.
    public func fetchCount(_ db: any SQLConnection) throws -> Int {
        (try db._fetch(self, .count) { try BorrowedRow.optionalFirstColumn($0) as Int? }.first ?? nil) ?? 0
    }
}

extension Table {
    /// How many rows the table has, on any source.
    public func fetchCount(_ db: any SQLConnection) throws -> Int {
        try all().fetchCount(db)
    }
}
