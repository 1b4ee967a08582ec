import Dispatch
import Testing

@testable import Locking

@Suite struct LockTests {
    @Test func threadsTakeTurns() {
        let counter = Lock(0)
        let log = Lock<[Int]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for _ in 0..<10_000 {
                let value = counter.withLock { count in
                    count += 1
                    return count
                }
                if value % 10_000 == 0 { log.withLock { $0.append(thread) } }
            }
        }
        #expect(counter.withLock { $0 } == 80_000)
        #expect(log.withLock { $0.count } == 8)
    }

    @Test func aThrowingBodyReleasesTheLockAndKeepsItsChanges() {
        struct Refused: Error {}
        let lock = Lock([1])
        #expect(throws: Refused.self) {
            try lock.withLock { (values: inout [Int]) throws(Refused) in
                values.append(2)
                throw Refused()
            }
        }
        #expect(lock.withLock { $0 } == [1, 2])
    }

    @Test func copiesShareTheValue() {
        let lock = Lock("a")
        let copy = lock
        copy.withLock { $0 += "b" }
        #expect(lock.withLock { $0 } == "ab")
    }

    @Test func theValueGoesWithTheLastCopy() {
        final class Tracked: Sendable {
            let onDeinit: @Sendable () -> Void
            init(onDeinit: @escaping @Sendable () -> Void) { self.onDeinit = onDeinit }
            deinit { onDeinit() }
        }
        let released = Lock(false)
        do {
            let lock = Lock(Tracked { released.withLock { $0 = true } })
            #expect(lock.withLock { _ in released.withLock { !$0 } })
        }
        #expect(released.withLock { $0 })
    }
}
