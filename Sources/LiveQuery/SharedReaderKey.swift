import QueryEviction

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
    /// The database named by the key, compared by identity; `nil` reads from the source's default database (SQLite's `DefaultDatabase`).
    let database: (any AnyObject & Sendable)?
    /// Finds the query's record in the live-query engine of its database, and holds it there.
    let attach: @Sendable () throws -> LiveAttachment

    /// A key for the query `id` on `database`, attached by `attach`: how each source (SQLite,
    /// PostgreSQL) makes its keys.
    package init(
        id: QueryPath, database: (any AnyObject & Sendable)?,
        attach: @escaping @Sendable () throws -> LiveAttachment
    ) {
        self.id = id
        self.database = database
        self.attach = attach
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

/// A key's query in the live-query engine of its database: the record that holds its value, and
/// the lease that keeps the engine refetching it while a reader holds it.
package struct LiveAttachment: Sendable {
    package let record: LiveRecord
    package let lease: LiveLease

    package init(record: LiveRecord, lease: LiveLease) {
        self.record = record
        self.lease = lease
    }
}
