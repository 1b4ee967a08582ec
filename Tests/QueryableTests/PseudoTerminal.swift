import Foundation
import Glibc
import Locking

struct PseudoTerminalError: Error, CustomStringConvertible {
    let description: String
}

/// A pseudo-terminal pair: the code under test uses `follower` as its terminal, the test
/// plays the person typing on `leader`.
final class PseudoTerminal: Sendable {
    let leader: Int32
    let follower: Int32
    private let output = Lock("")

    init() throws {
        var leader: Int32 = -1
        var follower: Int32 = -1
        guard openpty(&leader, &follower, nil, nil, nil) == 0 else {
            throw PseudoTerminalError(description: "openpty failed: \(String(cString: strerror(errno)))")
        }
        self.leader = leader
        self.follower = follower
    }

    deinit {
        close(leader)
        close(follower)
    }

    /// Types `text` as if on the keyboard.
    func type(_ text: String) {
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { write(leader, $0.baseAddress, $0.count) }
        precondition(written == bytes.count, "writing to the pseudo-terminal failed")
    }

    /// The terminal's settings as the code under test sees them.
    func settings() -> termios {
        var settings = termios()
        _ = tcgetattr(follower, &settings)
        return settings
    }

    /// Everything shown on the terminal so far (prompts and the echo of typed input).
    var shown: String { output.withLock { $0 } }

    /// Reads what the terminal shows until `text` appeared `occurrences` times.
    ///
    /// Reads on a dedicated thread; a generous deadline turns a hang into a test failure.
    func waitFor(_ text: String, occurrences: Int = 1) async throws {
        let leader = leader
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let thread = Thread {
                var buffer = [UInt8](repeating: 0, count: 1024)
                var descriptor = pollfd(fd: leader, events: Int16(POLLIN), revents: 0)
                while true {
                    if self.output.withLock({ $0.occurrences(of: text) >= occurrences }) {
                        continuation.resume()
                        return
                    }
                    descriptor.revents = 0
                    let ready = poll(&descriptor, 1, 20_000)
                    if ready == 0 {
                        let shown = self.output.withLock { $0 }
                        continuation.resume(
                            throwing: PseudoTerminalError(
                                description:
                                    "\"\(text)\" did not appear \(occurrences) time(s); terminal shows \(shown.debugDescription)"
                            ))
                        return
                    }
                    if ready < 0 {
                        if errno == EINTR { continue }
                        continuation.resume(throwing: PseudoTerminalError(description: "poll failed"))
                        return
                    }
                    let count = buffer.withUnsafeMutableBytes { read(leader, $0.baseAddress, $0.count) }
                    guard count > 0 else {
                        continuation.resume(throwing: PseudoTerminalError(description: "the terminal closed"))
                        return
                    }
                    let chunk = String(decoding: buffer[..<count], as: UTF8.self)
                    self.output.withLock { $0 += chunk }
                }
            }
            thread.start()
        }
    }
}
