// Running requests. Each fetch renders the request once and takes the statement from the
// connection's cache, so only the bindings change between runs of the same shape.

extension QueryInterfaceRequest where RowDecoder: FetchableRow {
    /// All matching rows, decoded with `init(row:)`.
    @inlinable
    public func fetchAll(_ db: Database) throws -> [RowDecoder] {
        let rendered = render(.all)
        return try db.cachedStatement(utf8: rendered.bytes).fetchAll(RowDecoder.self, rendered.arguments) { try RowDecoder(row: $0) }
    }

    /// The first matching row, or nil.
    @inlinable
    public func fetchOne(_ db: Database) throws -> RowDecoder? {
        let rendered = render(.one)
        return try db.cachedStatement(utf8: rendered.bytes).fetchOne(RowDecoder.self, rendered.arguments) { try RowDecoder(row: $0) }
    }
}

extension QueryInterfaceRequest where RowDecoder: Decodable {
    /// All matching rows, decoded through `Decodable`.
    public func fetchAll(_ db: Database) throws -> [RowDecoder] {
        let rendered = render(.all)
        return try db.fetchAll(RowDecoder.self, rendered.sql, rendered.arguments)
    }

    /// The first matching row, or nil.
    public func fetchOne(_ db: Database) throws -> RowDecoder? {
        let rendered = render(.one)
        return try db.fetchOne(RowDecoder.self, rendered.sql, rendered.arguments)
    }
}

extension QueryInterfaceRequest where RowDecoder: FetchableRow & Decodable {
    /// All matching rows, decoded with `init(row:)`, which is faster than `Decodable`.
    @inlinable
    public func fetchAll(_ db: Database) throws -> [RowDecoder] {
        let rendered = render(.all)
        return try db.cachedStatement(utf8: rendered.bytes).fetchAll(RowDecoder.self, rendered.arguments) { try RowDecoder(row: $0) }
    }

    /// The first matching row, decoded with `init(row:)`, or nil.
    @inlinable
    public func fetchOne(_ db: Database) throws -> RowDecoder? {
        let rendered = render(.one)
        return try db.cachedStatement(utf8: rendered.bytes).fetchOne(RowDecoder.self, rendered.arguments) { try RowDecoder(row: $0) }
    }
}

extension QueryInterfaceRequest where RowDecoder: SQLiteValueConvertible {
    /// The first column of every matching row.
    public func fetchAll(_ db: Database) throws -> [RowDecoder] {
        let rendered = render(.all)
        return try db.fetchAll(RowDecoder.self, rendered.sql, rendered.arguments)
    }

    /// The first column of the first matching row; nil when there is no row or it is NULL.
    public func fetchOne(_ db: Database) throws -> RowDecoder? {
        let rendered = render(.one)
        return try db.fetchOne(RowDecoder.self, rendered.sql, rendered.arguments)
    }
}

extension QueryInterfaceRequest where RowDecoder: SQLiteValueConvertible & Decodable {
    /// The first column of every matching row.
    public func fetchAll(_ db: Database) throws -> [RowDecoder] {
        let rendered = render(.all)
        return try db.fetchAll(RowDecoder.self, rendered.sql, rendered.arguments)
    }

    /// The first column of the first matching row; nil when there is no row or it is NULL.
    public func fetchOne(_ db: Database) throws -> RowDecoder? {
        let rendered = render(.one)
        return try db.fetchOne(RowDecoder.self, rendered.sql, rendered.arguments)
    }
}

extension QueryInterfaceRequest {
    /// How many rows ``fetchAll(_:)`` would return, counted by SQLite.
    public func fetchCount(_ db: Database) throws -> Int {
        let rendered = render(.count)
        return try db.fetchOne(Int.self, rendered.sql, rendered.arguments) ?? 0
    }
}
