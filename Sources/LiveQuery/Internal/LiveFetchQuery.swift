import QueryCache

/// Adapts a live query to the query cache, which keys its stores by query.
///
/// Readers never make these stores fetch: the database's live-query engine feeds them, in
/// order, from its refetch rounds. A fetch started on the store directly is still a correct read
/// of the key's database, through `read`.
package struct LiveFetchQuery<Value: Sendable>: QueryRequest {
    package typealias State = QueryState<Value?, Value>

    package let path: QueryPath
    let read: @Sendable () async throws -> Value

    package init(path: QueryPath, read: @escaping @Sendable () async throws -> Value) {
        self.path = path
        self.read = read
    }

    package func fetch(in context: QueryContext, with continuation: QueryContinuation<Value>) async throws -> Value {
        try await read()
    }
}
