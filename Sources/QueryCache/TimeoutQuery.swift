#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Thrown when a fetch attempt outlives its ``QueryRequest/timeout(_:)``.
public struct QueryTimeoutError: Error, Hashable, Sendable {
    /// The limit that was exceeded, in seconds.
    public let seconds: TimeInterval

    /// An error for a limit of `seconds`.
    public init(seconds: TimeInterval) {
        self.seconds = seconds
    }
}

/// A query whose every attempt fails with ``QueryTimeoutError`` after a time limit.
public struct TimeoutQuery<Base: QueryRequest>: QueryRequest {
    public typealias Value = Base.Value
    public typealias State = Base.State

    /// The wrapped query.
    public let base: Base
    /// The limit per attempt, in seconds.
    public let seconds: TimeInterval

    public var path: QueryPath { base.path }

    public func setup(context: inout QueryContext) {
        base.setup(context: &context)
    }

    public func fetch(
        in context: QueryContext,
        with continuation: QueryContinuation<Base.Value>
    ) async throws -> Base.Value {
        let base = self.base
        let seconds = self.seconds
        return try await withThrowingTaskGroup(of: Base.Value.self) { group in
            group.addTask { try await base.fetch(in: context, with: continuation) }
            group.addTask {
                try await context.queryTimeoutDelayer.delay(for: seconds)
                throw QueryTimeoutError(seconds: seconds)
            }
            // The loser is cancelled; the group still waits for it, so the base fetch must honour
            // cancellation for the timeout to return promptly.
            defer { group.cancelAll() }
            return try await group.next()!
        }
    }
}

extension QueryRequest {
    /// Fails each attempt with ``QueryTimeoutError`` if it takes longer than `seconds`. Retries
    /// apply to timeouts like to any other error. The wait uses
    /// ``QueryContext/queryTimeoutDelayer``.
    ///
    /// ```swift
    /// let store = client.store(for: SlowQuery().timeout(5))
    /// ```
    public func timeout(_ seconds: TimeInterval) -> TimeoutQuery<Self> {
        TimeoutQuery(base: self, seconds: seconds)
    }
}

extension QueryContext {
    /// The delayer that measures timeouts. Separate from ``queryDelayer`` so tests can remove retry
    /// delays without making every timeout fire at once. Defaults to ``QueryDelayer/taskSleep``.
    public var queryTimeoutDelayer: any QueryDelayer {
        get { self[TimeoutDelayerKey.self] }
        set { self[TimeoutDelayerKey.self] = newValue }
    }

    private enum TimeoutDelayerKey: Key {
        static var defaultValue: any QueryDelayer { TaskSleepQueryDelayer() }
    }
}
