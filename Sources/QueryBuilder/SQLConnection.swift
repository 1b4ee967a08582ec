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
/// into any `FetchableRow`, as on SQLite: by a hand-written `init(row:)`, through `Decodable`
/// (coding keys name the columns), or as single `DatabaseValueConvertible` values.
///
/// The package's sources are the only conforming types: the requirement is how a source runs a
/// request, and is not called directly.
public protocol SQLConnection: AnyObject {
    /// Runs `request`, shaped by `shape`, and decodes each of its rows with `decode`.
    func _fetch<RowValue, T>(
        _ request: QueryInterfaceRequest<RowValue>, _ shape: SQLFetchShape, _ decode: (BorrowedRow) throws -> T
    ) throws -> [T]
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
    /// All matching rows, each decoded as `RowValue`, on any source.
    public func fetchAll(_ db: any SQLConnection) throws -> [RowValue] {
        try db._fetch(self, .all) { try RowValue(row: $0) }
    }

    /// The first matching row (see `FetchableRow.init(firstRow:)`), or nil, on any source.
    public func fetchOne(_ db: any SQLConnection) throws -> RowValue? {
        try db._fetch(self, .one) { try RowValue(firstRow: $0) }.first ?? nil
    }
}

extension QueryInterfaceRequest {
    /// How many rows `fetchAll(_:)` would return, on any source.
    public func fetchCount(_ db: any SQLConnection) throws -> Int {
        (try db._fetch(self, .count) { try Int(firstRow: $0) }.first ?? nil) ?? 0
    }
}

extension Table {
    /// How many rows the table has, on any source.
    public func fetchCount(_ db: any SQLConnection) throws -> Int {
        try all().fetchCount(db)
    }
}
