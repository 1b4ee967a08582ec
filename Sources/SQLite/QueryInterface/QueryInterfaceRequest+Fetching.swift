// Running requests. Each fetch renders the request into the connection's buffers and takes the
// statement from the connection's cache, so only the bindings change between runs of a shape.

extension QueryInterfaceRequest where RowValue: FetchableRow {
    /// All matching rows, decoded with `init(row:)`.
    @inlinable
    public func fetchAll(_ db: Database) throws -> [RowValue] {
        try db.boundStatement(for: select, .all).fetchAllBound { try RowValue(row: $0) }
    }

    /// The first matching row, or nil.
    @inlinable
    public func fetchOne(_ db: Database) throws -> RowValue? {
        try db.boundStatement(for: select, .one).fetchOneBound { try RowValue(row: $0) }
    }
}

extension QueryInterfaceRequest where RowValue: Decodable {
    /// All matching rows, decoded through `Decodable`.
    @inlinable
    public func fetchAll(_ db: Database) throws -> [RowValue] {
        try db.boundStatement(for: select, .all).fetchAllDecodableBound(RowValue.self)
    }

    /// The first matching row, or nil.
    @inlinable
    public func fetchOne(_ db: Database) throws -> RowValue? {
        try db.boundStatement(for: select, .one).fetchOneDecodableBound(RowValue.self)
    }
}

extension QueryInterfaceRequest where RowValue: FetchableRow & Decodable {
    /// All matching rows, decoded with `init(row:)`, which is faster than `Decodable`.
    @inlinable
    public func fetchAll(_ db: Database) throws -> [RowValue] {
        try db.boundStatement(for: select, .all).fetchAllBound { try RowValue(row: $0) }
    }

    /// The first matching row, decoded with `init(row:)`, or nil.
    @inlinable
    public func fetchOne(_ db: Database) throws -> RowValue? {
        try db.boundStatement(for: select, .one).fetchOneBound { try RowValue(row: $0) }
    }
}

extension QueryInterfaceRequest where RowValue: SQLiteValueConvertible {
    /// The first column of every matching row.
    @inlinable
    public func fetchAll(_ db: Database) throws -> [RowValue] {
        try db.boundStatement(for: select, .all).fetchAllBound { try $0[0] as RowValue }
    }

    /// The first column of the first matching row; nil when there is no row or it is NULL.
    @inlinable
    public func fetchOne(_ db: Database) throws -> RowValue? {
        try db.boundStatement(for: select, .one).fetchOneBound(decode: Statement.optionalFirstColumn) ?? nil
    }
}

extension QueryInterfaceRequest where RowValue: SQLiteValueConvertible & Decodable {
    /// The first column of every matching row.
    @inlinable
    public func fetchAll(_ db: Database) throws -> [RowValue] {
        try db.boundStatement(for: select, .all).fetchAllBound { try $0[0] as RowValue }
    }

    /// The first column of the first matching row; nil when there is no row or it is NULL.
    @inlinable
    public func fetchOne(_ db: Database) throws -> RowValue? {
        try db.boundStatement(for: select, .one).fetchOneBound(decode: Statement.optionalFirstColumn) ?? nil
    }
}

extension QueryInterfaceRequest {
    /// How many rows `fetchAll(_:)` would return, counted by SQLite.
    public func fetchCount(_ db: Database) throws -> Int {
        let count: Int?? = try db.boundStatement(for: select, .count).fetchOneBound(
            decode: Statement.optionalFirstColumn)
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
