import Locking

/// The one shared record of a single query, seen by the asker, the presenter, the timeout and `cancel()`.
///
/// Every way a query can end funnels into ``end(with:)``, which accepts only the first
/// outcome. That is what guarantees the asker's continuation is resumed exactly once,
/// whichever of the racing parties gets there first.
final class QueryBox<Input: Sendable, Answer: Sendable>: Sendable {
    enum Outcome: Sendable {
        case answered(Answer)
        case failed(any Error)
        case cancelled(QueryCancellationError.Reason)
    }

    private struct State {
        var outcome: Outcome?
        var continuation: CheckedContinuation<Answer, any Error>?
        var endWaiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var nextWaiterID: UInt64 = 0
    }

    let input: Input
    private let state = Lock(State())
    private let onEnd: @Sendable (QueryBox) -> Void

    init(input: Input, onEnd: @escaping @Sendable (QueryBox) -> Void) {
        self.input = input
        self.onEnd = onEnd
    }

    var hasEnded: Bool {
        state.withLock { $0.outcome != nil }
    }

    /// Records the outcome if none was recorded yet; returns whether this call decided it.
    @discardableResult
    func end(with outcome: Outcome) -> Bool {
        let decided = state.withLock {
            state -> (CheckedContinuation<Answer, any Error>?, [CheckedContinuation<Void, Never>])? in
            guard state.outcome == nil else { return nil }
            state.outcome = outcome
            let continuation = state.continuation
            let waiters = Array(state.endWaiters.values)
            state.continuation = nil
            state.endWaiters = [:]
            return (continuation, waiters)
        }
        guard let (continuation, waiters) = decided else { return false }
        // The owner forgets the query before the asker resumes, so an asker that
        // checks `isQuerying` right after its answer already sees `false`.
        onEnd(self)
        if let continuation {
            Self.resume(continuation, with: outcome)
        }
        for waiter in waiters {
            waiter.resume()
        }
        return true
    }

    /// Hands over the asker's continuation; resumes it at once if the query already ended.
    func install(_ continuation: CheckedContinuation<Answer, any Error>) {
        let earlierOutcome = state.withLock { state -> Outcome? in
            if let outcome = state.outcome { return outcome }
            state.continuation = continuation
            return nil
        }
        if let earlierOutcome {
            Self.resume(continuation, with: earlierOutcome)
        }
    }

    /// Suspends until the query ends, or until the waiting task is cancelled.
    func waitUntilEnded() async {
        let id = state.withLock { state -> UInt64 in
            state.nextWaiterID += 1
            return state.nextWaiterID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    // Checked under the lock so a cancellation that already ran its
                    // handler (and found nothing to remove) is not missed.
                    if state.outcome != nil || Task.isCancelled { return true }
                    state.endWaiters[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { $0.endWaiters.removeValue(forKey: id) }
            waiter?.resume()
        }
    }

    private static func resume(_ continuation: CheckedContinuation<Answer, any Error>, with outcome: Outcome) {
        switch outcome {
        case .answered(let result):
            continuation.resume(returning: result)
        case .failed(let error):
            continuation.resume(throwing: error)
        case .cancelled(let reason):
            continuation.resume(throwing: QueryCancellationError(reason: reason))
        }
    }
}
