import Foundation
import Locking
import Queryable
import Testing

/// A ``TerminalWriter`` that keeps everything written and lets a test await a piece of text.
final class RecordingWriter: TerminalWriter {
    private struct Waiter {
        let text: String
        let occurrences: Int
        let continuation: CheckedContinuation<Bool, Never>
    }

    private struct State {
        var written = ""
        var waiters: [UInt64: Waiter] = [:]
        var nextID: UInt64 = 0
    }

    private let state = Lock(State())

    var written: String { state.withLock { $0.written } }

    func write(_ text: String) throws {
        let ready = state.withLock { state -> [Waiter] in
            state.written += text
            let written = state.written
            let ready = state.waiters.filter { written.occurrences(of: $0.value.text) >= $0.value.occurrences }
            for id in ready.keys { state.waiters[id] = nil }
            return Array(ready.values)
        }
        for waiter in ready { waiter.continuation.resume(returning: true) }
    }

    /// Suspends until `text` has been written at least `occurrences` times, or records an issue
    /// after `hangLimit`.
    func waitFor(_ text: String, occurrences: Int = 1, sourceLocation: SourceLocation = #_sourceLocation) async {
        let found = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let id = state.withLock { state -> UInt64? in
                if state.written.occurrences(of: text) >= occurrences { return nil }
                state.nextID += 1
                state.waiters[state.nextID] = Waiter(text: text, occurrences: occurrences, continuation: continuation)
                return state.nextID
            }
            guard let id else { return continuation.resume(returning: true) }
            afterHangLimit { [self] in
                state.withLock { $0.waiters.removeValue(forKey: id) }?.continuation.resume(returning: false)
            }
        }
        if !found {
            Issue.record(
                "waited \(hangLimit) for \(text.debugDescription) to be written \(occurrences) times; written: \(written.debugDescription)",
                sourceLocation: sourceLocation)
        }
    }
}

extension String {
    func occurrences(of text: String) -> Int {
        var count = 0
        var rest = self[...]
        while let range = rest.range(of: text) {
            count += 1
            rest = rest[range.upperBound...]
        }
        return count
    }
}
