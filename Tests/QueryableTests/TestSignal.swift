import Locking

/// A one-shot event a test can await, so tests wait for things to happen instead of sleeping.
final class TestSignal: Sendable {
    private struct State {
        var isSignalled = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Lock(State())

    func signal() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.isSignalled = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    var isSignalled: Bool { state.withLock { $0.isSignalled } }

    func wait() async {
        await withCheckedContinuation { continuation in
            let alreadySignalled = state.withLock { state -> Bool in
                if state.isSignalled { return true }
                state.waiters.append(continuation)
                return false
            }
            if alreadySignalled { continuation.resume() }
        }
    }
}
