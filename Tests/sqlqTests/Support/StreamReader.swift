import Foundation
import Glibc
import Synchronization

struct StreamReaderError: Error, CustomStringConvertible {
    let description: String
}

/// Collects what a running process writes to a pipe or a pseudo-terminal, on a thread of its
/// own, and lets a test wait until some text has appeared.
final class StreamReader: Sendable {
    private struct State {
        var text = ""
        var isClosed = false
        var waiters: [(text: String, occurrences: Int, continuation: CheckedContinuation<Void, any Error>)] = []
    }

    private let state = Mutex(State())

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
                    let ready = state.waiters.filter { text.occurrences(of: $0.text) >= $0.occurrences }
                    state.waiters.removeAll { text.occurrences(of: $0.text) >= $0.occurrences }
                    return ready.map(\.continuation)
                }
                for continuation in ready { continuation.resume() }
            }
            let waiting = state.withLock { state -> [(String, CheckedContinuation<Void, any Error>)] in
                state.isClosed = true
                defer { state.waiters = [] }
                return state.waiters.map { ($0.text, $0.continuation) }
            }
            for (text, continuation) in waiting {
                continuation.resume(
                    throwing: StreamReaderError(
                        description:
                            "the stream ended before \"\(text)\" appeared; it holds \(self.text.debugDescription)"))
            }
        }
        thread.start()
    }

    /// Everything read so far.
    var text: String { state.withLock { $0.text } }

    /// Returns once `text` has appeared `occurrences` times; throws if the stream ends first.
    func waitFor(_ text: String, occurrences: Int = 1) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let outcome = state.withLock { state -> Bool? in
                if state.text.occurrences(of: text) >= occurrences { return true }
                if state.isClosed { return false }
                state.waiters.append((text, occurrences, continuation))
                return nil
            }
            switch outcome {
            case true?: continuation.resume()
            case false?:
                continuation.resume(
                    throwing: StreamReaderError(
                        description:
                            "the stream ended before \"\(text)\" appeared; it holds \(self.text.debugDescription)"))
            case nil: break
            }
        }
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
