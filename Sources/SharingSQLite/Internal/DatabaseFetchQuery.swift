import QueryCache

/// Adapts a ``SharedReaderKey`` to the query cache, which keys its stores by query.
///
/// Readers never make these stores fetch: the database's live-query engine feeds them, in
/// order, from its refetch rounds. A fetch started on the store directly is still a correct read
/// of the key's database.
struct DatabaseFetchQuery<Value: Sendable>: QueryRequest {
    typealias State = QueryState<Value?, Value>

    let key: SharedReaderKey<Value>
    let writer: any DatabaseWriter

    var path: QueryPath { key.id }

    func fetch(in context: QueryContext, with continuation: QueryContinuation<Value>) async throws -> Value {
        let fetch = key.fetch
        return try await writer.read { db in try fetch(db).0 }
    }
}
