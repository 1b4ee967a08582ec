import Foundation
import Testing

@testable import QueryEviction

@Suite("StoreEviction")
struct StoreEvictionTests {
    let start = Date(timeIntervalSince1970: 1_000_000)

    static func idle(_ key: String) -> EvictionStatus { EvictionStatus(isInUse: false, unsubscribedSince: nil) }

    @Test("A store idle for longer than the timeout goes, one used since stays")
    func idleTimeout() {
        var eviction = StoreEviction<String>(policy: QueryEvictionPolicy(idleTimeout: 60))
        eviction.use("a", now: start)
        eviction.use("b", now: start)
        eviction.use("b", now: start.addingTimeInterval(30))
        #expect(eviction.evict(now: start.addingTimeInterval(59), keeping: nil, status: Self.idle).isEmpty)
        // The idle stores are looked for at most once per sixteenth of the timeout, unless asked to.
        #expect(eviction.evict(now: start.addingTimeInterval(60), keeping: nil, status: Self.idle).isEmpty)
        #expect(eviction.evict(now: start.addingTimeInterval(60), keeping: nil, scan: true, status: Self.idle) == ["a"])
        #expect(eviction.count == 1)
        #expect(eviction.evict(now: start.addingTimeInterval(90), keeping: nil, status: Self.idle) == ["b"])
        #expect(eviction.count == 0)
    }

    @Test("An unsubscribed store is idle from when its last reader left")
    func unsubscribedSince() {
        var eviction = StoreEviction<String>(policy: QueryEvictionPolicy(idleTimeout: 60))
        eviction.use("a", now: start)
        let left = start.addingTimeInterval(100)
        let status: (String) -> EvictionStatus = { _ in EvictionStatus(isInUse: false, unsubscribedSince: left) }
        #expect(eviction.evict(now: left.addingTimeInterval(59), keeping: nil, scan: true, status: status).isEmpty)
        #expect(eviction.evict(now: left.addingTimeInterval(60), keeping: nil, scan: true, status: status) == ["a"])
    }

    @Test("Beyond the maximum count the least recently used go first")
    func leastRecentlyUsed() {
        var eviction = StoreEviction<Int>(policy: QueryEvictionPolicy(idleTimeout: .infinity, maxStoreCount: 2))
        // The clock stands still: the order of uses decides.
        for key in [1, 2, 3] { eviction.use(key, now: start) }
        eviction.use(1, now: start)
        #expect(eviction.evict(now: start, keeping: nil) { _ in .init(isInUse: false, unsubscribedSince: nil) } == [2])
        eviction.use(4, now: start)
        #expect(eviction.evict(now: start, keeping: nil) { _ in .init(isInUse: false, unsubscribedSince: nil) } == [3])
        #expect(eviction.count == 2)
    }

    @Test("The kept store and stores in use stay, and a store found in use counts as used now")
    func keptAndInUse() {
        var expiring = StoreEviction<Int>(policy: QueryEvictionPolicy(idleTimeout: 10))
        for key in [1, 2, 3, 4] { expiring.use(key, now: start) }
        let evicted = expiring.evict(now: start.addingTimeInterval(20), keeping: 4) { key in
            EvictionStatus(isInUse: key == 1, unsubscribedSince: nil)
        }
        #expect(Set(evicted) == [2, 3])
        #expect(expiring.count == 2)

        var limited = StoreEviction<Int>(policy: QueryEvictionPolicy(idleTimeout: .infinity, maxStoreCount: 2))
        for key in [1, 2, 3] { limited.use(key, now: start) }
        #expect(
            limited.evict(now: start, keeping: nil) { EvictionStatus(isInUse: $0 == 1, unsubscribedSince: nil) } == [2])
        // 1 was found in use, so 3 is now the least recently used.
        limited.use(4, now: start)
        #expect(limited.evict(now: start, keeping: nil) { _ in .init(isInUse: false, unsubscribedSince: nil) } == [3])
    }

    @Test("Changing the policy makes the next eviction look at every store")
    func policyChange() {
        var eviction = StoreEviction<String>(policy: QueryEvictionPolicy(idleTimeout: 3_600))
        eviction.use("a", now: start)
        #expect(eviction.evict(now: start.addingTimeInterval(10), keeping: nil, status: Self.idle).isEmpty)
        eviction.policy.idleTimeout = 5
        #expect(eviction.evict(now: start.addingTimeInterval(10), keeping: nil, status: Self.idle) == ["a"])
    }

    @Test("A removed key is never evicted, and removeAll forgets every key")
    func removal() {
        var eviction = StoreEviction<Int>(policy: QueryEvictionPolicy(idleTimeout: .infinity, maxStoreCount: 1))
        for key in 0..<100 { eviction.use(key, now: start) }
        eviction.remove(0)
        let evicted = eviction.evict(now: start, keeping: nil) { _ in .init(isInUse: false, unsubscribedSince: nil) }
        #expect(evicted == Array(1..<99))
        eviction.removeAll()
        #expect(eviction.count == 0)
        eviction.use(7, now: start)
        #expect(eviction.count == 1)
    }
}
