import Foundation
import Locking
import Queryable

/// A ``TerminalWriter`` that keeps everything written and lets a test await a piece of text.
final class RecordingWriter: TerminalWriter {
    private struct Waiter {
        let text: String
        let occurrences: Int
        let continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        var written = ""
        var waiters: [Waiter] = []
    }

    private let state = Lock(State())

    var written: String { state.withLock { $0.written } }

    func write(_ text: String) throws {
        let ready = state.withLock { state -> [Waiter] in
            state.written += text
            let written = state.written
            let ready = state.waiters.filter { written.occurrences(of: $0.text) >= $0.occurrences }
            state.waiters.removeAll { written.occurrences(of: $0.text) >= $0.occurrences }
            return ready
        }
        for waiter in ready { waiter.continuation.resume() }
    }

    /// Suspends until `text` has been written at least `occurrences` times.
    func waitFor(_ text: String, occurrences: Int = 1) async {
        await withCheckedContinuation { continuation in
            let isThere = state.withLock { state -> Bool in
                if state.written.occurrences(of: text) >= occurrences { return true }
                state.waiters.append(Waiter(text: text, occurrences: occurrences, continuation: continuation))
                return false
            }
            if isThere { continuation.resume() }
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
