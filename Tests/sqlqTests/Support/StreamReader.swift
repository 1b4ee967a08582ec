import Foundation
import Glibc
import Locking

struct StreamReaderError: Error, CustomStringConvertible {
    let description: String
}

/// How long a test waits for output or an exit before it fails: an upper bound that only turns a
/// hang into a failure; nothing waits for it to pass.
let hangLimit: Duration = .seconds(120)

/// Collects what a running process writes to a pipe or a pseudo-terminal, on a thread of its
/// own, and lets a test wait until some text has appeared.
final class StreamReader: Sendable {
    private struct Waiter {
        let text: String
        let occurrences: Int
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var text = ""
        var isClosed = false
        var waiters: [Int: Waiter] = [:]
        var nextWaiterID = 0
    }

    private let state = Lock(State())

    /// Starts reading `descriptor` until it reports the end or an error.
    init(descriptor: Int32) {
        let thread = Thread { [self] in
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { break }
                let chunk = String(decoding: buffer[..<count], as: UTF8.self)
                let ready = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
                    state.text += chunk
                    let text = state.text
                    let ready = state.waiters.filter { text.occurrences(of: $0.value.text) >= $0.value.occurrences }
                    for id in ready.keys { state.waiters[id] = nil }
                    return ready.values.map(\.continuation)
                }
                for continuation in ready { continuation.resume() }
            }
            let (waiting, text) = state.withLock { state -> ([Waiter], String) in
                state.isClosed = true
                defer { state.waiters = [:] }
                return (Array(state.waiters.values), state.text)
            }
            for waiter in waiting {
                waiter.continuation.resume(throwing: Self.endError(waiter.text, waiter.occurrences, text))
            }
        }
        thread.start()
    }

    /// Everything read so far.
    var text: String { state.withLock { $0.text } }

    /// Returns once `text` has appeared `occurrences` times; throws if the stream ends first, or
    /// if `timeLimit` passes first.
    func waitFor(_ text: String, occurrences: Int = 1, timeLimit: Duration = hangLimit) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            enum Outcome {
                case found
                case ended(String)
                case waiting(Int)
            }
            let outcome = state.withLock { state -> Outcome in
                if state.text.occurrences(of: text) >= occurrences { return .found }
                if state.isClosed { return .ended(state.text) }
                let id = state.nextWaiterID
                state.nextWaiterID += 1
                state.waiters[id] = Waiter(text: text, occurrences: occurrences, continuation: continuation)
                return .waiting(id)
            }
            switch outcome {
            case .found:
                continuation.resume()
            case .ended(let held):
                continuation.resume(throwing: Self.endError(text, occurrences, held))
            case .waiting(let id):
                let (seconds, attoseconds) = timeLimit.components
                let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
                DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) { [self] in
                    let expired = state.withLock { state -> (Waiter, String)? in
                        guard let waiter = state.waiters.removeValue(forKey: id) else { return nil }
                        return (waiter, state.text)
                    }
                    guard let (waiter, held) = expired else { return }
                    waiter.continuation.resume(
                        throwing: StreamReaderError(
                            description:
                                "waited \(timeLimit) for \(Self.describe(text, occurrences)), in vain; "
                                + "the stream holds \(held.debugDescription)"))
                }
            }
        }
    }

    private static func describe(_ text: String, _ occurrences: Int) -> String {
        occurrences == 1 ? text.debugDescription : "\(text.debugDescription) to appear \(occurrences) times"
    }

    private static func endError(_ text: String, _ occurrences: Int, _ held: String) -> StreamReaderError {
        StreamReaderError(
            description:
                "the stream ended before \(describe(text, occurrences)) appeared; it holds \(held.debugDescription)")
    }
}

extension String {
    /// How many times `text` occurs, compared byte by byte (so that "\n" is found inside the
    /// "\r\n" a terminal writes, which Swift counts as one character).
    func occurrences(of text: String) -> Int {
        let haystack = Array(utf8)
        let needle = Array(text.utf8)
        guard !needle.isEmpty, haystack.count >= needle.count else { return 0 }
        var count = 0
        var index = 0
        while index <= haystack.count - needle.count {
            if haystack[index..<(index + needle.count)].elementsEqual(needle) {
                count += 1
                index += needle.count
            } else {
                index += 1
            }
        }
        return count
    }
}
