import QueryCache

/// Adapts a ``SharedReaderKey`` to the query cache: a fetch is an async read on the key's
/// database (on a reader connection of a pool, so writers never wait for it), and what the read
/// touched is reported back so that only intersecting commits refetch.
struct DatabaseFetchQuery<Value: Sendable>: QueryRequest {
    typealias State = QueryState<Value?, Value>

    let key: SharedReaderKey<Value>
    let writer: any DatabaseWriter
    let didRead: @Sendable (QueryPath, ObservedRegion) -> Void

    var path: QueryPath { key.id }

    func fetch(in context: QueryContext, with continuation: QueryContinuation<Value>) async throws -> Value {
        let fetch = key.fetch
        do {
            let (value, region) = try await writer.read { db in try fetch(db) }
            didRead(key.id, region)
            return value
        } catch {
            // A failed statement reported nothing: watch everything, so that the commit that
            // fixes the query (creating a missing table, say) brings the value in.
            didRead(key.id, .everything)
            throw error
        }
    }
}
