import QueryCache

/// What a ``SharedReader`` loads: a query, and the database it runs on.
///
/// Build keys with `fetchAll`, `fetchOne` and `fetch`:
///
/// ```swift
/// @SharedReader(.fetchAll("SELECT * FROM items WHERE done = ?", arguments: [false], database: db))
/// var openItems: [Item]
/// ```
///
/// Two keys are equal when they run the same query on the same database; readers with equal keys
/// share one cached value and one query per change.
public struct SharedReaderKey<Value: Sendable>: Hashable, Sendable, CustomStringConvertible {
    /// Identifies the query, whatever the database: its kind, SQL, arguments and row type, or
    /// the `FetchKeyRequest` itself.
    let id: QueryPath
    /// `nil` reads from ``DefaultDatabase``.
    let database: (any DatabaseWriter)?
    /// Runs the query and reports what it read.
    let fetch: @Sendable (Database) throws -> (Value, ObservedRegion)

    init(
        id: QueryPath,
        database: (any DatabaseWriter)?,
        fetch: @escaping @Sendable (Database) throws -> (Value, ObservedRegion)
    ) {
        self.id = id
        self.database = database
        self.fetch = fetch
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.id == rhs.id && lhs.database === rhs.database
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(id)
        hasher.combine(database.map(ObjectIdentifier.init))
    }

    public var description: String { id.description }
}
