/// Thrown by ``Queryable/query(with:timeout:)`` when a query ends without an answer.
///
/// ```swift
/// do {
///     let confirmed = try await confirmation.query(with: "Delete 3 files?")
/// } catch let error as QueryCancellationError where error.reason == .endOfInput {
///     // The user closed standard input; treat it as "no".
/// }
/// ```
public struct QueryCancellationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Why a query ended without an answer.
    public enum Reason: Sendable, Hashable, CustomStringConvertible {
        /// ``Queryable/cancel()`` was called.
        case cancelRequested
        /// The task that asked the query was cancelled.
        case taskCancelled
        /// A newer query replaced this one under ``QueryConflictPolicy/cancelPreviousQuery``.
        case replacedByNewQuery
        /// Another query was already waiting under ``QueryConflictPolicy/cancelNewQuery``.
        case rejectedByOngoingQuery
        /// No answer arrived within the given timeout.
        case timedOut(after: Duration)
        /// The presenter called ``PendingQuery/cancel(reason:)``.
        case cancelledByPresenter
        /// The presenter released the ``PendingQuery`` without answering it.
        case droppedByPresenter
        /// The presenter's input ended (for example Ctrl-D or a closed pipe) before an answer was given.
        case endOfInput
        /// The person at the terminal pressed Ctrl-C.
        case interrupted

        public var description: String {
            switch self {
            case .cancelRequested:
                "the query was cancelled by a call to cancel()"
            case .taskCancelled:
                "the task waiting for the answer was cancelled"
            case .replacedByNewQuery:
                "a newer query replaced it (policy .cancelPreviousQuery); use .cancelNewQuery to keep the first one"
            case .rejectedByOngoingQuery:
                "another query was still waiting (policy .cancelNewQuery); wait for it or use .cancelPreviousQuery"
            case .timedOut(let duration):
                "no answer arrived within \(duration); give the presenter more time or check that one is listening"
            case .cancelledByPresenter:
                "the presenter cancelled it"
            case .droppedByPresenter:
                "the presenter released it without answering; make sure every received query is answered or cancelled"
            case .endOfInput:
                "the input ended before an answer was given"
            case .interrupted:
                "it was interrupted with Ctrl-C"
            }
        }
    }

    /// Why the query ended.
    public let reason: Reason

    /// An error for a query that ended for `reason`.
    public init(reason: Reason) {
        self.reason = reason
    }

    public var description: String {
        "Query cancelled: \(reason)."
    }
}
