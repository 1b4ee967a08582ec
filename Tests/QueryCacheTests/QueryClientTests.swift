import Testing

@testable import QueryCache

@Suite("QueryClient")
struct QueryClientTests {
    @Test("store(for:) is cached by path and gets the client in its context")
    func cachedByPath() {
        let client = QueryClient(defaultContext: testContext())
        let first = client.store(for: TestQuery(["a", 1]))
        let second = client.store(for: TestQuery(["a", 1]))
        #expect(first === second)
        #expect(first !== client.store(for: TestQuery(["a", 2])))
        #expect(first.context.queryClient === client)
        #expect(client.storeCount == 2)
    }

    @Test("An existing store can be read synchronously by path, without creating one")
    func lookupByPath() async throws {
        let client = QueryClient(defaultContext: testContext())
        #expect(client.store(for: ["a"], of: TestQuery.State.self) == nil)
        #expect(client.storeCount == 0)
        try await client.store(for: TestQuery(["a"]) { _ in 5 }).fetch()
        let store = try #require(client.store(for: ["a"], of: TestQuery.State.self))
        #expect(store.currentValue == 5)
        #expect(!store.isLoading)
        #expect(client.opaqueStore(for: ["a"]) === store)
    }

    @Test("stores(matching:) matches by path prefix")
    func prefixMatching() {
        let client = QueryClient(defaultContext: testContext())
        _ = client.store(for: TestQuery(["posts", 1]))
        _ = client.store(for: TestQuery(["posts", 2]))
        _ = client.store(for: TestQuery(["users", 1]))
        #expect(client.stores(matching: ["posts"], of: TestQuery.State.self).count == 2)
        #expect(client.stores(matching: ["posts", 2]).count == 1)
        #expect(client.stores(matching: []).count == 3)
        #expect(client.stores(matching: ["posts"], of: QueryState<String?, String>.self).isEmpty)
    }

    @Test("invalidate(matching:) refetches subscribed stores and only marks the others stale")
    func invalidateByPrefix() async throws {
        let client = QueryClient(defaultContext: testContext())
        let watched = TestQuery(["posts", 1])
        let unwatched = TestQuery(["posts", 2])
        let other = TestQuery(["users", 1])
        for query in [watched, unwatched, other] {
            try await client.store(for: query).fetch()
        }
        let watchedStore = client.store(for: watched)
        let subscription = watchedStore.subscribe { _ in }

        client.invalidate(matching: ["posts"])
        // The refetch starts before invalidate returns; the query does not wait, so it may
        // already have ended on another thread.
        #expect(watchedStore.isLoading || watched.fetchCount.count == 2)
        await yieldUntil { !watchedStore.isLoading }
        #expect(watched.fetchCount.count == 2)
        #expect(!watchedStore.isStale)

        #expect(client.store(for: unwatched).isStale)
        #expect(!client.store(for: unwatched).isLoading)
        #expect(unwatched.fetchCount.count == 1)
        #expect(!client.store(for: other).isStale)

        // Used again: subscribing refetches the stale store.
        let unwatchedStore = client.store(for: unwatched)
        let second = unwatchedStore.subscribe { _ in }
        await yieldUntil { !unwatchedStore.isLoading }
        #expect(unwatched.fetchCount.count == 2)
        subscription.cancel()
        second.cancel()
    }

    @Test("setValue is an optimistic update visible at once")
    func optimisticUpdate() {
        let client = QueryClient(defaultContext: testContext())
        let store = client.setValue(12, for: TestQuery(["counter"]))
        #expect(store.currentValue == 12)
        #expect(client.store(for: ["counter"], of: TestQuery.State.self)?.currentValue == 12)
    }

    @Test("setResult records a value or an error obtained elsewhere, as a fetch would")
    func externalResults() {
        let clock = TestClock()
        var context = testContext(clock: clock)
        context.queryFetchesOnSubscribe = false
        let client = QueryClient(defaultContext: context)
        let store = client.store(for: TestQuery(["fed"]))
        let states = Recorder<TestQuery.State>()
        let subscription = store.subscribe { states.append($0) }
        defer { subscription.cancel() }
        store.invalidate(refetch: false)
        store.setResult(.success(3))
        #expect(store.currentValue == 3)
        #expect(!store.isStale)
        #expect(store.valueLastUpdatedAt == clock.now)
        clock.advance(by: 1)
        store.setResult(.failure(TestError()))
        #expect(store.currentValue == 3, "an error keeps the value")
        #expect(store.error is TestError)
        #expect(store.errorLastUpdatedAt == clock.now)
        store.setResult(.success(4))
        #expect(store.error == nil)
        #expect(states.values.map(\.currentValue) == [nil, nil, 3, 3, 4])
        #expect(store.valueUpdateCount == 2)
        #expect(store.errorUpdateCount == 1)
    }

    @Test("remove(matching:) forgets stores; holders keep working")
    func remove() async throws {
        let client = QueryClient(defaultContext: testContext())
        let store = client.store(for: TestQuery(["posts", 1]))
        _ = client.store(for: TestQuery(["users", 1]))
        client.remove(matching: ["posts"])
        #expect(client.storeCount == 1)
        #expect(client.store(for: ["posts", 1], of: TestQuery.State.self) == nil)
        #expect(try await store.fetch() == 1)
        #expect(client.store(for: TestQuery(["posts", 1])) !== store)
    }

    @Test("Stores and clients are usable from many tasks at once")
    func concurrentAccess() async throws {
        let client = QueryClient(defaultContext: testContext())
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<200 {
                group.addTask {
                    let store = client.store(for: TestQuery(["n", index % 10]) { _ in index % 10 })
                    _ = store.currentValue
                    let value = try await store.fetch()
                    #expect(value == index % 10)
                    client.invalidate(matching: ["n", index % 10], refetch: false)
                }
            }
            try await group.waitForAll()
        }
        #expect(client.storeCount == 10)
    }
}
