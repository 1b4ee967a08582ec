import Dispatch
import Locking
import Testing

/// How long a test waits for something before it fails: an upper bound that only turns a hang
/// into a failure; nothing waits for it to pass.
let hangLimit: Duration = .seconds(120)

/// Runs `work` once `hangLimit` has passed, on a thread of its own.
func afterHangLimit(_ work: @escaping @Sendable () -> Void) {
    let (seconds, attoseconds) = hangLimit.components
    DispatchQueue.global().asyncAfter(
        deadline: .now() + .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)),
        execute: work)
}

/// A one-shot event a test can await, so tests wait for things to happen instead of sleeping.
final class TestSignal: Sendable {
    private struct State {
        var isSignalled = false
        var waiters: [UInt64: CheckedContinuation<Bool, Never>] = [:]
        var nextID: UInt64 = 0
    }

    private let state = Lock(State())

    func signal() {
        let waiters = state.withLock { state -> [CheckedContinuation<Bool, Never>] in
            state.isSignalled = true
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume(returning: true) }
    }

    var isSignalled: Bool { state.withLock { $0.isSignalled } }

    /// Returns once signalled, or records an issue after `hangLimit`.
    func wait(sourceLocation: SourceLocation = #_sourceLocation) async {
        let signalled = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let id = state.withLock { state -> UInt64? in
                if state.isSignalled { return nil }
                state.nextID += 1
                state.waiters[state.nextID] = continuation
                return state.nextID
            }
            guard let id else { return continuation.resume(returning: true) }
            afterHangLimit { [self] in
                state.withLock { $0.waiters.removeValue(forKey: id) }?.resume(returning: false)
            }
        }
        if !signalled { Issue.record("waited \(hangLimit) for a signal, in vain", sourceLocation: sourceLocation) }
    }
}
