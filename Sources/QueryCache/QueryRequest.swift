/// A description of how to fetch a value, identified by a `QueryPath`.
///
/// Implement one of the two `fetch` methods (`with:` or `using:`; they are interchangeable).
/// `path` comes for free when the query is `Hashable`.
///
/// ```swift
/// struct PlayerQuery: QueryRequest, Hashable {
///   let id: Int
///
///   func fetch(
///     in context: QueryContext,
///     with continuation: QueryContinuation<Player>
///   ) async throws -> Player {
///     try await context.api.player(id: id)
///   }
/// }
/// ```
public protocol QueryRequest<Value, State>: Sendable {
    /// The type a fetch returns.
    associatedtype Value: Sendable
    /// The state kept by the query's store.
    associatedtype State: QueryStateProtocol = QueryState<Value?, Value>
    where State.QueryValue == Value

    /// Identifies the query in a ``QueryClient``; equal paths share one store.
    var path: QueryPath { get }

    /// Adjusts the store's context. Runs once, when the store is created.
    func setup(context: inout QueryContext)

    /// Fetches the value. Yield intermediate results through `continuation`.
    func fetch(
        in context: QueryContext,
        with continuation: QueryContinuation<Value>
    ) async throws -> Value

    /// The same as ``fetch(in:with:)``, under the argument label some code prefers.
    func fetch(
        in context: QueryContext,
        using continuation: QueryContinuation<Value>
    ) async throws -> Value
}

extension QueryRequest {
    public func setup(context: inout QueryContext) {}

    // Each default forwards to the other, so a conformer implements exactly one of them.
    public func fetch(
        in context: QueryContext,
        with continuation: QueryContinuation<Value>
    ) async throws -> Value {
        try await fetch(in: context, using: continuation)
    }

    public func fetch(
        in context: QueryContext,
        using continuation: QueryContinuation<Value>
    ) async throws -> Value {
        try await fetch(in: context, with: continuation)
    }
}

extension QueryRequest where Self: Hashable {
    /// A path holding the query itself.
    public var path: QueryPath { [self] }
}
