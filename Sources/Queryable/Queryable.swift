import Locking
import Observation

/// Asks a question from async code and suspends until some presenter answers it.
///
/// The asking side calls ``query(with:timeout:)`` and awaits the result. The answering side
/// (a closure, a task reading ``pendingQueries``, or a ``TerminalPresenter``) receives each
/// query and answers it, without either side knowing how the other works.
///
/// ```swift
/// let deletion = Queryable<String, Bool>()
///
/// // Answering side, for example a terminal prompt:
/// let presenter = Task {
///     await TerminalPresenter().present(deletion) { .confirmation($0, default: false) }
/// }
///
/// // Asking side, anywhere in the program:
/// if try await deletion.query(with: "Delete 3 files?") {
///     // delete them
/// }
/// ```
///
/// At most one query waits at a time; ``queryConflictPolicy`` decides what happens when a
/// second one starts. Every query ends exactly once: with an answer, an error from the
/// presenter, or a ``QueryCancellationError``.
///
/// `isQuerying` is observable with the Observation framework.
public final class Queryable<Input: Sendable, Answer: Sendable>: Sendable {
    /// How a new query is handled while another one is waiting.
    public let queryConflictPolicy: QueryConflictPolicy

    private struct WaitingPresenter {
        let id: UInt64
        let continuation: CheckedContinuation<PendingQuery<Input, Answer>?, Never>
    }

    private enum PresenterDecision {
        case deliver(QueryBox<Input, Answer>)
        case finish
        case wait
    }

    private struct State {
        /// The query that is waiting for an answer, if any.
        var current: QueryBox<Input, Answer>?
        /// `current` while no presenter has received it yet.
        var undelivered: QueryBox<Input, Answer>?
        var waitingPresenters: [WaitingPresenter] = []
        var nextPresenterID: UInt64 = 0
        /// The `isQuerying` value observers were last told about.
        var publishedIsQuerying = false

        mutating func publishIsQuerying() -> Bool {
            let isQuerying = current != nil
            defer { publishedIsQuerying = isQuerying }
            return isQuerying != publishedIsQuerying
        }
    }

    private let state = Lock(State())
    private let registrar = ObservationRegistrar()

    /// Creates a queryable.
    /// - Parameter queryConflictPolicy: What to do when a query starts while another is waiting.
    public init(queryConflictPolicy: QueryConflictPolicy = .cancelPreviousQuery) {
        self.queryConflictPolicy = queryConflictPolicy
    }

    /// Whether a query is waiting for its answer. Observable.
    public var isQuerying: Bool {
        registrar.access(self, keyPath: \.isQuerying)
        return state.withLock { state in
            guard let current = state.current else { return false }
            return !current.hasEnded
        }
    }

    /// Asks a query and suspends until it is answered.
    ///
    /// ```swift
    /// let name = try await nameQuery.query(with: "guest", timeout: .seconds(30))
    /// ```
    ///
    /// - Parameters:
    ///   - input: The value handed to the presenter, for example the question to show.
    ///   - timeout: If given, the query is cancelled when no answer arrives in time.
    /// - Returns: The presenter's answer.
    /// - Throws: ``QueryCancellationError`` when the query ends without an answer, or the
    ///   error the presenter passed to ``PendingQuery/answer(throwing:)``.
    public func query(with input: Input, timeout: Duration? = nil) async throws -> Answer {
        // Checked up front so a task that is already cancelled never shows a question.
        if Task.isCancelled {
            throw QueryCancellationError(reason: .taskCancelled)
        }
        let box = QueryBox<Input, Answer>(input: input) { [weak self] box in
            self?.queryDidEnd(box)
        }
        start(box)

        let timeoutTask = timeout.map { duration in
            Task {
                do {
                    try await Task.sleep(for: duration)
                } catch {
                    return
                }
                box.end(with: .cancelled(.timedOut(after: duration)))
            }
        }
        defer { timeoutTask?.cancel() }

        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                box.install(continuation)
            }
        } onCancel: {
            box.end(with: .cancelled(.taskCancelled))
        }
    }

    /// Cancels the waiting query, if any; its asker gets ``QueryCancellationError/Reason/cancelRequested``.
    public func cancel() {
        let current = state.withLock { $0.current }
        current?.end(with: .cancelled(.cancelRequested))
    }

    /// A handle that can ask queries but not answer them; pass it to code that only needs to ask.
    public var trigger: Trigger {
        Trigger(queryable: self)
    }

    /// The queries waiting for an answer, for a presenter to receive and answer.
    ///
    /// A query asked before anyone iterates is kept and delivered to the first presenter
    /// that asks for the next element. With several iterators, each query goes to one of them.
    /// The sequence ends when the iterating task is cancelled.
    public var pendingQueries: PendingQueries {
        PendingQueries(queryable: self)
    }

    // MARK: - Internals

    private func start(_ box: QueryBox<Input, Answer>) {
        typealias Delivery = (presenter: WaitingPresenter, query: PendingQuery<Input, Answer>)
        let (replaced, rejected, delivery, changed) = state.withLock { state in
            var replaced: QueryBox<Input, Answer>?
            if let current = state.current, !current.hasEnded {
                switch queryConflictPolicy {
                case .cancelNewQuery:
                    return (nil as QueryBox<Input, Answer>?, true, nil as Delivery?, false)
                case .cancelPreviousQuery:
                    replaced = current
                }
            }
            state.current = box
            var delivery: Delivery?
            if state.waitingPresenters.isEmpty {
                state.undelivered = box
            } else {
                state.undelivered = nil
                // Made under the lock, which the presenter takes once it resumes: see nextPendingQuery.
                delivery = (state.waitingPresenters.removeFirst(), PendingQuery(box: box))
            }
            return (replaced, false, delivery, state.publishIsQuerying())
        }
        if rejected {
            box.end(with: .cancelled(.rejectedByOngoingQuery))
            return
        }
        if changed { notifyIsQueryingChanged() }
        replaced?.end(with: .cancelled(.replacedByNewQuery))
        delivery?.presenter.continuation.resume(returning: delivery?.query)
    }

    private func queryDidEnd(_ box: QueryBox<Input, Answer>) {
        let changed = state.withLock { state in
            guard state.current === box else { return false }
            state.current = nil
            if state.undelivered === box { state.undelivered = nil }
            return state.publishIsQuerying()
        }
        if changed { notifyIsQueryingChanged() }
    }

    private func notifyIsQueryingChanged() {
        // The change already happened under the lock; observers are told afterwards and
        // outside it, because they may read `isQuerying` again and the lock is not reentrant.
        registrar.withMutation(of: self, keyPath: \.isQuerying) {}
    }

    /// Waits for the next undelivered query; `nil` once the calling task is cancelled.
    func nextPendingQuery() async -> PendingQuery<Input, Answer>? {
        let id = state.withLock { state -> UInt64 in
            state.nextPresenterID += 1
            return state.nextPresenterID
        }
        let query = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<PendingQuery<Input, Answer>?, Never>) in
                let decision = state.withLock { state -> PresenterDecision in
                    // Checked under the lock so a cancellation whose handler already ran
                    // (and found nothing to remove) is not missed.
                    if Task.isCancelled { return .finish }
                    if let box = state.undelivered {
                        state.undelivered = nil
                        if !box.hasEnded { return .deliver(box) }
                    }
                    state.waitingPresenters.append(WaitingPresenter(id: id, continuation: continuation))
                    return .wait
                }
                switch decision {
                case .deliver(let box): continuation.resume(returning: PendingQuery(box: box))
                case .finish: continuation.resume(returning: nil)
                case .wait: break
                }
            }
        } onCancel: {
            let presenter = state.withLock { state -> WaitingPresenter? in
                guard let index = state.waitingPresenters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waitingPresenters.remove(at: index)
            }
            presenter?.continuation.resume(returning: nil)
        }
        // The query was made on the asker's thread. The continuation hands it over safely, but
        // Thread Sanitizer does not always see that hand-over inside the concurrency runtime,
        // which it does not instrument; the lock, held by `start` while it made the query, is a
        // hand-over it sees. One uncontended lock per query.
        state.withLock { _ in }
        return query
    }
}

extension Queryable: Observable {}

extension Queryable where Input == Void {
    /// Asks a query that needs no input and suspends until it is answered.
    ///
    /// ```swift
    /// let confirmed = try await confirmation.query()
    /// ```
    public func query(timeout: Duration? = nil) async throws -> Answer {
        try await query(with: (), timeout: timeout)
    }
}
