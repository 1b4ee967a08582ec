#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Waits between retries (and, through ``QueryContext/queryTimeoutDelayer``, for timeouts).
/// Replace it to make tests instant or to record the requested delays.
///
/// ```swift
/// store.context.queryDelayer = .noDelay
/// ```
public protocol QueryDelayer: Sendable {
    /// Suspends for `seconds`. Throws `CancellationError` if the task is cancelled while waiting.
    func delay(for seconds: TimeInterval) async throws
}

/// A delayer that returns at once.
public struct NoDelayQueryDelayer: QueryDelayer {
    /// A delayer that returns at once.
    public init() {}
    public func delay(for seconds: TimeInterval) async throws {
        try Task.checkCancellation()
    }
}

/// A delayer that really sleeps, using `Task.sleep`.
public struct TaskSleepQueryDelayer: QueryDelayer {
    /// A delayer that sleeps with `Task.sleep`.
    public init() {}
    public func delay(for seconds: TimeInterval) async throws {
        guard seconds > 0 else { return try Task.checkCancellation() }
        try await Task.sleep(for: .seconds(seconds))
    }
}

extension QueryDelayer where Self == NoDelayQueryDelayer {
    /// A delayer that does not wait.
    public static var noDelay: NoDelayQueryDelayer { NoDelayQueryDelayer() }
}

extension QueryDelayer where Self == TaskSleepQueryDelayer {
    /// A delayer that sleeps for the requested time.
    public static var taskSleep: TaskSleepQueryDelayer { TaskSleepQueryDelayer() }
}

extension QueryContext {
    /// The delayer used between retries. Defaults to ``QueryDelayer/taskSleep``.
    public var queryDelayer: any QueryDelayer {
        get { self[QueryDelayerKey.self] }
        set { self[QueryDelayerKey.self] = newValue }
    }

    private enum QueryDelayerKey: Key {
        static var defaultValue: any QueryDelayer { TaskSleepQueryDelayer() }
    }
}
