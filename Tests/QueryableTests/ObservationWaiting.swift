import Locking
import Observation
import Queryable
import Testing

/// Claims a continuation so whichever of several racing callbacks comes first resumes it.
final class ResumeOnce: Sendable {
    private let claimed = Lock(false)

    var isClaimed: Bool { claimed.withLock { $0 } }

    func claim() -> Bool {
        claimed.withLock { claimed in
            defer { claimed = true }
            return !claimed
        }
    }
}

private enum WaitOutcome {
    case matched
    case changed
    case timedOut
}

/// Suspends until `queryable.isQuerying == expected`, woken by Observation rather than polling;
/// records an issue if that takes longer than `hangLimit`.
func waitUntil<Input, Answer>(
    _ queryable: Queryable<Input, Answer>, isQuerying expected: Bool,
    sourceLocation: SourceLocation = #_sourceLocation
) async {
    let expired = ResumeOnce()
    afterHangLimit { _ = expired.claim() }
    while true {
        let outcome = await withCheckedContinuation { (continuation: CheckedContinuation<WaitOutcome, Never>) in
            let once = ResumeOnce()
            let current = withObservationTracking {
                queryable.isQuerying
            } onChange: {
                if once.claim() { continuation.resume(returning: .changed) }
            }
            // Tracking starts when the closure returns: a change between its read and then
            // reaches no onChange, so the value is read once more.
            if current == expected || queryable.isQuerying == expected, once.claim() {
                continuation.resume(returning: .matched)
            }
            // Checked once the limit has passed, at the latest: a later change, or this timer.
            afterHangLimit {
                if once.claim() { continuation.resume(returning: .timedOut) }
            }
        }
        switch outcome {
        case .matched:
            return
        case .changed where !expired.isClaimed:
            continue
        case .changed, .timedOut:
            Issue.record("isQuerying did not become \(expected) within \(hangLimit)", sourceLocation: sourceLocation)
            return
        }
    }
}
