import Locking
import Observation
import Queryable

/// Claims a continuation so whichever of several racing callbacks comes first resumes it.
final class ResumeOnce: Sendable {
    private let claimed = Lock(false)

    func claim() -> Bool {
        claimed.withLock { claimed in
            defer { claimed = true }
            return !claimed
        }
    }
}

/// Suspends until `queryable.isQuerying == expected`, woken by Observation rather than polling.
func waitUntil<Input, Answer>(_ queryable: Queryable<Input, Answer>, isQuerying expected: Bool) async {
    while true {
        let matched = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let once = ResumeOnce()
            let current = withObservationTracking {
                queryable.isQuerying
            } onChange: {
                if once.claim() { continuation.resume(returning: false) }
            }
            if current == expected, once.claim() {
                continuation.resume(returning: true)
            }
        }
        if matched { return }
    }
}
