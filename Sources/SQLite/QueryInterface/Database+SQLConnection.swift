// Query-builder requests on SQLite's connection: rendered into the connection's reusable buffer,
// and run through its statement cache.

extension Database: SQLConnection {
    public func _fetch<RowValue, T>(
        _ request: QueryInterfaceRequest<RowValue>, _ shape: SQLFetchShape, _ decode: (BorrowedRow) throws -> T
    ) throws -> [T] {
        let statement = try boundStatement(for: request.select, Self.rendering(shape))
        if case .all = shape { return try statement.fetchAllBound(decode: decode) }
        return try statement.fetchOneBound(decode: decode).map { [$0] } ?? []
    }

    private static func rendering(_ shape: SQLFetchShape) -> SQLSelect.Rendering {
        switch shape {
        case .all: .all
        case .one: .one
        case .count: .count
        }
    }
}

extension Database {
    /// The cached statement for `select`, with its arguments bound.
    ///
    /// The SQL renders into the connection's reusable buffers and the statement is found by
    /// those bytes, so running a request whose shape ran before allocates nothing and makes
    /// no `String`.
    @usableFromInline
    func boundStatement(for select: SQLSelect, _ rendering: SQLSelect.Rendering) throws -> Statement {
        // Rendering never reenters the connection, so the buffers have one user at a time.
        defer { renderer.removeAll() }
        select.render(rendering, into: renderer)
        try renderer.checkValues()
        let statement = try cachedStatement(utf8: renderer.bytes)
        try statement.bind(renderer.arguments)
        if !regionTrace.recordings.isEmpty {
            regionTrace.builderStatement = (statement.handle, select.tableName, select.predicate)
        }
        return statement
    }
}
