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
    /// The database named by the key, compared by identity; `nil` reads from the source's default database (SQLite's `DefaultDatabase`).
    let database: (any AnyObject & Sendable)?
    /// Finds the query's store in the live-query engine of its database, and holds it there.
    let attach: @Sendable () throws -> LiveAttachment<Value>

    /// A key for the query `id` on `database`, attached by `attach`: how each source (SQLite,
    /// PostgreSQL) makes its keys.
    package init(
        id: QueryPath, database: (any AnyObject & Sendable)?,
        attach: @escaping @Sendable () throws -> LiveAttachment<Value>
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

/// A key's query in the live-query engine of its database: the store that holds its value, and
/// the lease that keeps the engine refetching it while a reader holds it.
package struct LiveAttachment<Value: Sendable>: Sendable {
    package let store: QueryStore<QueryState<Value?, Value>>
    package let lease: any LiveLease

    package init(store: QueryStore<QueryState<Value?, Value>>, lease: any LiveLease) {
        self.store = store
        self.lease = lease
    }
}

/// A reader's hold on a query of a live-query engine, whatever its source.
package protocol LiveLease: AnyObject, Sendable {
    /// Fetches the query, and calls `completion` once its store holds the result: with `fresh`,
    /// in a read that starts after this call; otherwise joining a fetch under way, or at once
    /// when the store is not stale.
    func refresh(fresh: Bool, completion: @escaping @Sendable (Result<Void, any Error>) -> Void)
    /// How many refetch rounds fetched the query; for tests.
    var fetchCount: Int { get }
}

extension LiveLease {
    /// ``refresh(fresh:completion:)``, awaited.
    func refresh(fresh: Bool) async -> Result<Void, any Error> {
        await withCheckedContinuation { continuation in
            refresh(fresh: fresh) { continuation.resume(returning: $0) }
        }
    }
}
