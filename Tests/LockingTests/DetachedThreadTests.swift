import Dispatch
import Testing

@testable import Locking

@Suite struct DetachedThreadTests {
    @Test("each body runs on a thread of its own, beside the caller and beside each other")
    func bodiesRunConcurrently() throws {
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        let released = Lock(0)
        for _ in 0..<2 {
            // Each body blocks until both have started: run one after the other, or on the
            // caller's thread, they would time out instead.
            try DetachedThread.start(named: "DetachedThreadTests") {
                started.signal()
                if release.wait(timeout: .now() + 10) == .success { released.withLock { $0 += 1 } }
                finished.signal()
            }
        }
        #expect(started.wait(timeout: .now() + 10) == .success)
        #expect(started.wait(timeout: .now() + 10) == .success)
        release.signal()
        release.signal()
        #expect(finished.wait(timeout: .now() + 10) == .success)
        #expect(finished.wait(timeout: .now() + 10) == .success)
        #expect(released.withLock { $0 } == 2)
    }

    @Test("the body is released once it has run")
    func bodyIsReleased() throws {
        final class Tracked: Sendable {
            let onDeinit: @Sendable () -> Void
            init(onDeinit: @escaping @Sendable () -> Void) { self.onDeinit = onDeinit }
            deinit { onDeinit() }
        }
        let gone = DispatchSemaphore(value: 0)
        do {
            let tracked = Tracked { gone.signal() }
            try DetachedThread.start(named: "DetachedThreadTests") { _ = tracked }
        }
        #expect(gone.wait(timeout: .now() + 10) == .success)
    }
}
