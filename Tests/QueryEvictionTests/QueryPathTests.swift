import Foundation
import QueryEviction
import Synchronization
import Testing

@Suite("QueryPath and QueryClock")
struct QueryPathTests {
    @Test("Array-literal paths compare element-wise and match by prefix")
    func paths() {
        let path: QueryPath = ["nearby-events", 1, "x"]
        #expect(path == QueryPath(["nearby-events", 1, "x"]))
        #expect(path != ["nearby-events", "1", "x"])
        #expect(QueryPath(["nearby-events"]).isPrefix(of: path))
        #expect(QueryPath([]).isPrefix(of: path))
        #expect(path.isPrefix(of: path))
        #expect(!path.isPrefix(of: ["nearby-events"]))
        #expect(!QueryPath(["other"]).isPrefix(of: path))
        #expect(path.count == 3)
        #expect(path.appending("y").count == 4)
        #expect(path.description == "[nearby-events, 1, x]")
    }

    @Test("Clocks: custom, frozen and system time")
    func clocks() {
        let seconds = Atomic<Int>(0)
        let custom: any QueryClock = .custom {
            Date(timeIntervalSince1970: 1_000_000 + Double(seconds.add(1, ordering: .relaxed).oldValue))
        }
        let first = custom.now()
        #expect(custom.now() == first.addingTimeInterval(1))
        let frozen = custom.frozen()
        #expect(frozen.now() == frozen.now())
        let system: any QueryClock = .systemTime
        #expect(abs(system.now().timeIntervalSinceNow) < 60)
    }

    @Test("The policy that never evicts has no timeout and no limit")
    func never() {
        #expect(QueryEvictionPolicy.never.idleTimeout == .infinity)
        #expect(QueryEvictionPolicy.never.maxStoreCount == nil)
        #expect(QueryEvictionPolicy() == QueryEvictionPolicy(idleTimeout: 5 * 60, maxStoreCount: nil))
    }
}
