// Running requests. Each fetch renders the request into the connection's buffers and takes the
// statement from the connection's cache, so only the bindings change between runs of a shape.

extension QueryInterfaceRequest where RowValue: FetchableRow {
    /// All matching rows, each decoded as `RowValue`.
    @inlinable
    public func fetchAll(_ db: Database) throws -> [RowValue] {
        try db.boundStatement(for: select, .all).fetchAllBound { try $0.decode(RowValue.self) }
    }

    /// The first matching row (see `FetchableRow.init(firstRow:)`), or nil.
    @inlinable
    public func fetchOne(_ db: Database) throws -> RowValue? {
        try db.boundStatement(for: select, .one).fetchOneBound { try RowValue(firstRow: $0) } ?? nil
    }
}

extension QueryInterfaceRequest {
    /// How many rows `fetchAll(_:)` would return, counted by SQLite.
    public func fetchCount(_ db: Database) throws -> Int {
        let count = try db.boundStatement(for: select, .count).fetchOneBound { try Int(firstRow: $0) }
        return (count ?? nil) ?? 0
    }
}

extension Table {
    /// How many rows the table has.
    public func fetchCount(_ db: Database) throws -> Int {
        try all().fetchCount(db)
    }
}

extension TableRecord {
    /// How many rows the table has.
    public static func fetchCount(_ db: Database) throws -> Int {
        try all().fetchCount(db)
    }
}
