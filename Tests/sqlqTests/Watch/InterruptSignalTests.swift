import Dispatch
import Glibc
import Testing

@testable import sqlq

@Suite("Interrupt signal", .serialized, .onProcessThreads)
struct InterruptSignalTests {
    /// SIGINT's current action, as a bit pattern (`SIG_DFL` and `SIG_IGN` are not functions).
    static func action() -> Int {
        var action = sigaction()
        guard sigaction(SIGINT, nil, &action) == 0 else { return -1 }
        return unsafeBitCast(action.__sigaction_handler.sa_handler, to: Int.self)
    }

    static func bits(_ handler: sighandler_t?) -> Int { unsafeBitCast(handler, to: Int.self) }

    @Test("Ctrl-C's signal reaches the handler instead of ending the process, until cancelled")
    func delivery() async throws {
        let heard = TestSignal()
        let interrupt = InterruptSignal { heard.fire() }
        #expect(Self.action() != Self.bits(SIG_DFL), "the default action, ending the process, is off")
        #expect(kill(getpid(), SIGINT) == 0)
        try await heard.wait()
        interrupt.cancel()
        #expect(Self.action() == Self.bits(SIG_DFL))
    }
}

/// Fires once; a test waits for it, with a time limit.
final class TestSignal: Sendable {
    private let stream: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation

    init() {
        (stream, continuation) = AsyncStream.makeStream(of: Void.self)
    }

    func fire() {
        continuation.yield()
        continuation.finish()
    }

    /// Returns once fired; throws after `hangLimit`.
    func wait() async throws {
        let stream = self.stream
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for await _ in stream { return }
            }
            group.addTask {
                try await Task.sleep(for: hangLimit)
                throw StreamReaderError(description: "the signal did not fire within \(hangLimit)")
            }
            defer { group.cancelAll() }
            try await group.next()
        }
    }
}
