import Locking

/// Wakes a waiting task: rung by a notification, or by the time limit of the wait.
final class Doorbell: Sendable {
    private let state = Lock<(rung: Bool, waiter: CheckedContinuation<Void, Never>?)>((false, nil))

    /// Wakes the waiter, or the next wait when none waits.
    func ring() {
        let waiter: CheckedContinuation<Void, Never>? = state.withLock { state in
            guard let waiter = state.waiter else {
                state.rung = true
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    /// Returns when rung (at once if it was rung since the last wait), or after `limit`.
    func wait(atMost limit: Duration) async {
        let timer = Task { [self] in
            guard (try? await Task.sleep(for: limit)) != nil else { return }
            ring()
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now: Bool = state.withLock { state in
                if state.rung {
                    state.rung = false
                    return true
                }
                state.waiter = continuation
                return false
            }
            if now { continuation.resume() }
        }
        timer.cancel()
    }
}
