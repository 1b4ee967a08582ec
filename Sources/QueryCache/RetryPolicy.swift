#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// An error that retrying cannot fix, such as a malformed SQL statement. Conforming errors fail
/// a fetch at once under the default ``QueryRetryPredicate``.
public protocol NonRetryableQueryError: Error {}

/// Decides whether a failed attempt should be retried.
///
/// ```swift
/// context.queryRetryPredicate = QueryRetryPredicate { error, _ in !(error is SQLSyntaxError) }
/// ```
public struct QueryRetryPredicate: Sendable {
    private let predicate: @Sendable (any Error, QueryContext) -> Bool

    /// Creates a predicate; return `true` to retry after `error`.
    public init(_ shouldRetry: @escaping @Sendable (_ error: any Error, _ context: QueryContext) -> Bool) {
        self.predicate = shouldRetry
    }

    /// Whether to retry after `error`. Cancellation is never retried, whatever the predicate says.
    public func shouldRetry(_ error: any Error, in context: QueryContext) -> Bool {
        if error is CancellationError { return false }
        return predicate(error, context)
    }

    /// Retries everything except ``NonRetryableQueryError`` and `DecodingError`, which would fail
    /// the same way again.
    public static let `default` = QueryRetryPredicate { error, _ in
        !(error is any NonRetryableQueryError) && !(error is DecodingError)
    }

    /// Retries every error.
    public static let always = QueryRetryPredicate { _, _ in true }
}

/// Computes how long to wait before retry number `retryIndex` (1 for the first retry).
public struct QueryBackoffFunction: Sendable {
    private let delay: @Sendable (Int) -> TimeInterval

    /// Creates a backoff from a function of the retry index (1 for the first retry).
    public init(_ delay: @escaping @Sendable (_ retryIndex: Int) -> TimeInterval) {
        self.delay = delay
    }

    /// The delay before retry `retryIndex`; zero for the first attempt.
    public func delay(forRetry retryIndex: Int) -> TimeInterval {
        retryIndex > 0 ? delay(retryIndex) : 0
    }

    /// `base` times the Fibonacci number of the retry index: 1, 1, 2, 3, 5, 8… times `base`.
    public static func fibonacci(_ base: TimeInterval) -> Self {
        Self { index in
            var (previous, current) = (0.0, 1.0)
            for _ in 1..<max(index, 1) { (previous, current) = (current, previous + current) }
            return base * current
        }
    }

    /// `base` doubled for each retry: 1, 2, 4, 8… times `base`.
    public static func exponential(_ base: TimeInterval) -> Self {
        Self { index in base * pow(2, Double(index - 1)) }
    }

    /// The same delay before every retry.
    public static func constant(_ delay: TimeInterval) -> Self {
        Self { _ in delay }
    }

    /// No delay between retries.
    public static let noBackoff = constant(0)
}

extension QueryContext {
    /// The index of the current attempt: 0 for the first, 1 for the first retry, and so on.
    public var retryIndex: Int {
        get { self[RetryIndexKey.self] }
        set { self[RetryIndexKey.self] = newValue }
    }

    /// How many times a failed fetch is retried. Defaults to 3; set 0 to disable retries.
    public var maxRetries: Int {
        get { self[MaxRetriesKey.self] }
        set { self[MaxRetriesKey.self] = newValue }
    }

    /// The wait before each retry. Defaults to Fibonacci backoff with a one-second base.
    public var queryBackoffFunction: QueryBackoffFunction {
        get { self[BackoffKey.self] }
        set { self[BackoffKey.self] = newValue }
    }

    /// Which errors are retried. Defaults to ``QueryRetryPredicate/default``.
    public var queryRetryPredicate: QueryRetryPredicate {
        get { self[RetryPredicateKey.self] }
        set { self[RetryPredicateKey.self] = newValue }
    }

    private enum RetryIndexKey: Key {
        static let defaultValue = 0
    }

    private enum MaxRetriesKey: Key {
        static let defaultValue = 3
    }

    private enum BackoffKey: Key {
        static let defaultValue = QueryBackoffFunction.fibonacci(1)
    }

    private enum RetryPredicateKey: Key {
        static let defaultValue = QueryRetryPredicate.default
    }
}
