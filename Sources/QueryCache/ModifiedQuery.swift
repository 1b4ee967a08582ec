#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A query that adjusts its base query's context before the store uses it. Created by
/// ``QueryRequest/retry(limit:backoff:)``, ``QueryRequest/retry(when:)``, ``QueryRequest/stale(after:)``
/// and ``QueryRequest/setupContext(_:)``.
public struct ModifiedQuery<Base: QueryRequest>: QueryRequest {
    public typealias Value = Base.Value
    public typealias State = Base.State

    /// The wrapped query.
    public let base: Base
    private let modify: @Sendable (inout QueryContext) -> Void

    init(base: Base, modify: @escaping @Sendable (inout QueryContext) -> Void) {
        self.base = base
        self.modify = modify
    }

    public var path: QueryPath { base.path }

    public func setup(context: inout QueryContext) {
        base.setup(context: &context)
        modify(&context)
    }

    public func fetch(
        in context: QueryContext,
        with continuation: QueryContinuation<Base.Value>
    ) async throws -> Base.Value {
        try await base.fetch(in: context, with: continuation)
    }
}

extension QueryRequest {
    /// Runs `modify` on the store's context after the query's own `setup(context:)`.
    public func setupContext(
        _ modify: @escaping @Sendable (inout QueryContext) -> Void
    ) -> ModifiedQuery<Self> {
        ModifiedQuery(base: self, modify: modify)
    }

    /// Retries a failed fetch up to `limit` times; 0 disables retries.
    ///
    /// ```swift
    /// let store = client.store(for: PlayerQuery(id: 1).retry(limit: 0))
    /// ```
    public func retry(
        limit: Int,
        backoff: QueryBackoffFunction? = nil
    ) -> ModifiedQuery<Self> {
        setupContext { context in
            context.maxRetries = limit
            if let backoff { context.queryBackoffFunction = backoff }
        }
    }

    /// Retries only the errors for which `shouldRetry` returns `true`.
    ///
    /// ```swift
    /// query.retry { error, _ in !(error is SQLSyntaxError) }
    /// ```
    public func retry(
        when shouldRetry: @escaping @Sendable (_ error: any Error, _ context: QueryContext) -> Bool
    ) -> ModifiedQuery<Self> {
        setupContext { $0.queryRetryPredicate = QueryRetryPredicate(shouldRetry) }
    }

    /// Treats the value as stale `seconds` after it arrived (see ``QueryStore/isStale``).
    public func stale(after seconds: TimeInterval) -> ModifiedQuery<Self> {
        setupContext { $0.queryStaleDuration = seconds }
    }
}
