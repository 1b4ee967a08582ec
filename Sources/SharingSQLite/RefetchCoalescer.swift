import Synchronization

/// Runs one query's refetches one at a time, so that a burst of commits costs at most one fetch
/// in flight and one queued, and a newer value can never be overtaken by an older one.
final class RefetchCoalescer: Sendable {
    typealias Outcome = Result<Void, any Error>
    private typealias Waiter = CheckedContinuation<Outcome, Never>

    private struct State {
        var isRunning = false
        /// Something changed after the running fetch began reading: fetch again when it ends.
        var isQueued = false
        /// Resumed when the running fetch ends.
        var waitingForCurrent: [Waiter] = []
        /// Resumed when the queued fetch ends: they need a read that starts after their call.
        var waitingForNext: [Waiter] = []
        /// Counts the fetches started, in order; for tests and diagnostics.
        var started = 0

        /// Marks a run started and returns true, or queues behind the running one and returns false.
        mutating func claimRun() -> Bool {
            if isRunning {
                isQueued = true
                return false
            }
            isRunning = true
            started += 1
            return true
        }
    }

    private let state = Mutex(State())
    private let perform: @Sendable () async -> Outcome

    init(perform: @escaping @Sendable () async -> Outcome) {
        self.perform = perform
    }

    /// Something the query reads changed: fetch, or queue one fetch behind the running one.
    func schedule() {
        if state.withLock({ $0.claimRun() }) { startLoop() }
    }

    /// Queues a fetch only if one is running, because the running one may have read before the
    /// change. Used for queries nobody watches, which refetch when used again instead.
    func scheduleIfRunning() {
        state.withLock { if $0.isRunning { $0.isQueued = true } }
    }

    /// Waits for a fetch and returns how it went. With `fresh`, the fetch starts after this call;
    /// otherwise a running fetch is joined.
    func fetch(fresh: Bool) async -> Outcome {
        await withCheckedContinuation { (waiter: Waiter) in
            let start = state.withLock { state -> Bool in
                if state.isRunning {
                    if fresh || state.isQueued {
                        state.isQueued = true
                        state.waitingForNext.append(waiter)
                    } else {
                        state.waitingForCurrent.append(waiter)
                    }
                    return false
                }
                state.waitingForCurrent.append(waiter)
                return state.claimRun()
            }
            if start { startLoop() }
        }
    }

    var startedCount: Int { state.withLock { $0.started } }

    private func startLoop() {
        Task { await self.runLoop() }
    }

    private func runLoop() async {
        while true {
            let outcome = await perform()
            let (waiters, again) = state.withLock { state -> ([Waiter], Bool) in
                let waiters = state.waitingForCurrent
                state.waitingForCurrent = state.waitingForNext
                state.waitingForNext = []
                if state.isQueued {
                    state.isQueued = false
                    state.started += 1
                    return (waiters, true)
                }
                state.isRunning = false
                return (waiters, false)
            }
            for waiter in waiters { waiter.resume(returning: outcome) }
            if !again { return }
        }
    }
}
