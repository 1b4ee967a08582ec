/// Lets a running fetch publish intermediate results before it returns.
///
/// Yielding does not end the fetch: the store's `isLoading` stays `true` until `fetch` returns.
///
/// ```swift
/// if let cached = cache[key] { continuation.yield(cached) }
/// return try await fetchFreshData()
/// ```
public struct QueryContinuation<Value: Sendable>: Sendable {
    private let onResult: @Sendable (Result<Value, any Error>, QueryContext?) -> Void

    /// Creates a continuation that forwards every yield to `onResult`. Stores create these; you
    /// need this only to call a query's `fetch` directly, for example in a test.
    public init(
        onResult: @escaping @Sendable (_ result: Result<Value, any Error>, _ context: QueryContext?) -> Void
    ) {
        self.onResult = onResult
    }

    /// Publishes an intermediate value. Pass `context` to timestamp it with that context's clock.
    public func yield(_ value: Value, _ context: QueryContext? = nil) {
        onResult(.success(value), context)
    }

    /// Publishes an intermediate error without failing the fetch.
    public func yield(error: any Error, _ context: QueryContext? = nil) {
        onResult(.failure(error), context)
    }

    /// Publishes an intermediate result.
    public func yield(with result: Result<Value, any Error>, _ context: QueryContext? = nil) {
        onResult(result, context)
    }
}
