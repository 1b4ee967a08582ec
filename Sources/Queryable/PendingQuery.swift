/// A query waiting for an answer, as a presenter receives it from ``Queryable/pendingQueries``.
///
/// Answer it once with ``answer(with:)``, ``answer(throwing:)`` or ``cancel(reason:)``.
/// Later calls are ignored and return `false`, so a presenter racing with a timeout or
/// with `Queryable.cancel()` never has to check first. Releasing a `PendingQuery`
/// without answering cancels the query with ``QueryCancellationError/Reason/droppedByPresenter``,
/// so the asker is never left waiting.
///
/// ```swift
/// for await query in confirmation.pendingQueries {
///     query.answer(with: query.input.hasPrefix("Keep"))
/// }
/// ```
public final class PendingQuery<Input: Sendable, Answer: Sendable>: Sendable {
    private let box: QueryBox<Input, Answer>

    init(box: QueryBox<Input, Answer>) {
        self.box = box
    }

    deinit {
        box.end(with: .cancelled(.droppedByPresenter))
    }

    /// The value the asker passed to ``Queryable/query(with:timeout:)``.
    public var input: Input { box.input }

    /// Whether the query has ended, by an answer or by any kind of cancellation.
    public var hasEnded: Bool { box.hasEnded }

    /// Resumes the asker with `result`.
    /// - Returns: `true` if this answer was delivered, `false` if the query had already ended.
    @discardableResult
    public func answer(with result: Answer) -> Bool {
        box.end(with: .answered(result))
    }

    /// Resumes the asker by throwing `error` from its `query` call.
    /// - Returns: `true` if this error was delivered, `false` if the query had already ended.
    @discardableResult
    public func answer(throwing error: any Error) -> Bool {
        box.end(with: .failed(error))
    }

    /// Ends the query without an answer; the asker gets a ``QueryCancellationError`` with `reason`.
    /// - Returns: `true` if this call ended the query, `false` if it had already ended.
    @discardableResult
    public func cancel(reason: QueryCancellationError.Reason = .cancelledByPresenter) -> Bool {
        box.end(with: .cancelled(reason))
    }

    /// Suspends until the query ends (from any side), or until the calling task is cancelled.
    ///
    /// A presenter uses this to stop showing a question that was cancelled or timed out meanwhile.
    public func waitUntilEnded() async {
        await box.waitUntilEnded()
    }
}
