import QueryCache
import Testing

@Suite("Eviction")
struct EvictionTests {
    @Test("Unsubscribed stores are evicted after five minutes by the query clock")
    func idleTimeout() {
        let clock = TestClock()
        let client = QueryClient(defaultContext: testContext(clock: clock))
        #expect(client.evictionPolicy.idleTimeout == 300)
        _ = client.store(for: TestQuery(["a"]))
        clock.advance(by: 299)
        client.evictExpired()
        #expect(client.storeCount == 1)
        clock.advance(by: 1)
        client.evictExpired()
        #expect(client.storeCount == 0)
    }

    @Test("Lookups count as use and also evict expired stores")
    func lookupsEvict() {
        let clock = TestClock()
        let client = QueryClient(
            defaultContext: testContext(clock: clock),
            evictionPolicy: QueryEvictionPolicy(idleTimeout: 10)
        )
        let kept = client.store(for: TestQuery(["kept"]))
        _ = client.store(for: TestQuery(["dropped"]))
        clock.advance(by: 6)
        #expect(client.store(for: ["kept"], of: TestQuery.State.self) === kept)
        clock.advance(by: 6)
        #expect(client.store(for: ["kept"], of: TestQuery.State.self) === kept)
        #expect(client.storeCount == 1)
    }

    @Test("Subscribed and loading stores are not evicted; idle time starts when the last subscriber leaves")
    func inUseStoresStay() async throws {
        let clock = TestClock()
        var context = testContext(clock: clock)
        context.queryFetchesOnSubscribe = false
        let client = QueryClient(
            defaultContext: context,
            evictionPolicy: QueryEvictionPolicy(idleTimeout: 10)
        )
        let subscribed = client.store(for: TestQuery(["subscribed"]))
        let subscription = subscribed.subscribe { _ in }
        let gate = Gate()
        let loading = client.store(for: TestQuery(["loading"], gate: gate))
        loading.revalidate()

        clock.advance(by: 100)
        client.evictExpired()
        #expect(client.storeCount == 2)

        subscription.cancel()
        #expect(subscribed.unsubscribedSince == clock.now)
        clock.advance(by: 9)
        client.evictExpired()
        #expect(client.store(for: ["subscribed"], of: TestQuery.State.self) === subscribed)

        gate.open()
        await yieldUntil { !loading.isLoading }
        clock.advance(by: 10)
        client.evictExpired()
        #expect(client.storeCount == 0)
    }

    @Test("Beyond the maximum count, the least recently used unsubscribed store goes first")
    func maxStoreCount() {
        let clock = TestClock()
        var context = testContext(clock: clock)
        context.queryFetchesOnSubscribe = false
        let client = QueryClient(
            defaultContext: context,
            evictionPolicy: QueryEvictionPolicy(maxStoreCount: 2)
        )
        let a = client.store(for: TestQuery(["a"]))
        let subscription = a.subscribe { _ in }
        _ = client.store(for: TestQuery(["b"]))
        _ = client.store(for: TestQuery(["c"]))
        // `a` is the oldest but subscribed, so `b` goes.
        #expect(client.storeCount == 2)
        #expect(client.store(for: ["b"], of: TestQuery.State.self) == nil)

        subscription.cancel()
        _ = client.store(for: ["a"], of: TestQuery.State.self)  // `a` is now more recent than `c`
        _ = client.store(for: TestQuery(["d"]))
        #expect(client.store(for: ["c"], of: TestQuery.State.self) == nil)
        #expect(client.store(for: ["a"], of: TestQuery.State.self) === a)
        #expect(client.storeCount == 2)
    }

    @Test("QueryEvictionPolicy.never keeps everything")
    func never() {
        let clock = TestClock()
        let client = QueryClient(defaultContext: testContext(clock: clock), evictionPolicy: .never)
        _ = client.store(for: TestQuery(["a"]))
        clock.advance(by: 1_000_000)
        client.evictExpired()
        #expect(client.storeCount == 1)
    }

    @Test("The eviction handler hears of every evicted store, by time and by count, and nothing else")
    func evictionHandler() {
        let clock = TestClock()
        let client = QueryClient(
            defaultContext: testContext(clock: clock),
            evictionPolicy: QueryEvictionPolicy(idleTimeout: 10, maxStoreCount: 2)
        )
        let evicted = Recorder<QueryPath>()
        client.evictionHandler = { stores in for store in stores { evicted.append(store.path) } }
        _ = client.store(for: TestQuery(["a"]))
        _ = client.store(for: TestQuery(["b"]))
        #expect(evicted.values.isEmpty)
        _ = client.store(for: TestQuery(["c"]))
        #expect(evicted.values == [["a"]])
        client.remove(matching: ["b"])
        #expect(evicted.values == [["a"]], "removal is not eviction")
        clock.advance(by: 10)
        client.evictExpired()
        #expect(evicted.values == [["a"], ["c"]])
        #expect(client.storeCount == 0)
    }

    @Test("Many stores over the maximum: the count holds and the most recently used survive")
    func manyStores() {
        let clock = TestClock()
        let client = QueryClient(
            defaultContext: testContext(clock: clock),
            evictionPolicy: QueryEvictionPolicy(maxStoreCount: 100)
        )
        let evictedCount = Counter()
        client.evictionHandler = { stores in for _ in stores { evictedCount.increment() } }
        let favourite = client.store(for: TestQuery(["favourite"]))
        for index in 0..<20_000 {
            _ = client.store(for: TestQuery(["item", index]))
            #expect(client.storeCount <= 100)
            // Looked up again and again, so never the least recently used.
            if index % 50 == 0 { #expect(client.store(for: ["favourite"], of: TestQuery.State.self) === favourite) }
        }
        #expect(client.storeCount == 100)
        #expect(evictedCount.count == 20_001 - 100)
        #expect(client.store(for: ["favourite"], of: TestQuery.State.self) === favourite)
        // The survivors are the 99 most recent items.
        for index in 19_901..<20_000 {
            #expect(client.store(for: ["item", index], of: TestQuery.State.self) != nil)
        }
        #expect(client.store(for: ["item", 19_900], of: TestQuery.State.self) == nil)
    }
}
