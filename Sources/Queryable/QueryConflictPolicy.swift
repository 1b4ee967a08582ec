/// What a ``Queryable`` does when a query starts while another one is still waiting for its answer.
///
/// A `Queryable` has at most one waiting query at a time, so a presenter only ever
/// has to show one question.
///
/// ```swift
/// let confirmation = Queryable<String, Bool>(queryConflictPolicy: .cancelNewQuery)
/// ```
public enum QueryConflictPolicy: Sendable, Hashable {
    /// The waiting query is cancelled with ``QueryCancellationError/Reason/replacedByNewQuery``
    /// and the new query takes its place.
    case cancelPreviousQuery

    /// The new query is cancelled at once with ``QueryCancellationError/Reason/rejectedByOngoingQuery``
    /// and the waiting query keeps going.
    case cancelNewQuery
}
