import Observation
import QueryCache
import Testing

@Suite("Subscriptions and observation")
struct SubscriptionTests {
    @Test("subscribe delivers the current state, then every change in order")
    func deliversStatesInOrder() async throws {
        let store = QueryStore.detached(query: TestQuery { _ in 3 }, initialValue: nil)
        store.context = testContext()
        store.context.queryFetchesOnSubscribe = false
        let states = Recorder<(Int?, Bool)>()
        let subscription = store.subscribe { states.append(($0.currentValue, $0.isLoading)) }
        #expect(store.subscriberCount == 1)
        #expect(store.hasSubscribers)
        try await store.fetch()
        // The final state reaches the subscriber on the thread that ended the fetch, which may
        // still be delivering it when `fetch()` returns here.
        await yieldUntil { states.values.count == 3 }
        subscription.cancel()
        #expect(!store.hasSubscribers)
        let recorded = states.values
        #expect(recorded.map(\.0) == [nil, nil, 3])
        #expect(recorded.map(\.1) == [false, true, false])
    }

    @Test("Subscribing to a stale store fetches; a fresh one does not")
    func fetchOnSubscribe() async throws {
        let query = TestQuery()
        let store = QueryStore.detached(query: query, initialValue: nil)
        store.context = testContext()
        let first = store.subscribe { _ in }
        // The fetch starts before subscribe returns; the query does not wait, so it may already
        // have ended on another thread.
        #expect(store.isLoading || query.fetchCount.count == 1)
        await yieldUntil { !store.isLoading }
        let second = store.subscribe { _ in }
        #expect(!store.isLoading)
        #expect(query.fetchCount.count == 1)
        first.cancel()
        second.cancel()
    }

    @Test("Dropping a subscription unsubscribes")
    func deinitUnsubscribes() {
        let store = QueryStore.detached(query: TestQuery(), initialValue: 1)
        store.context.queryFetchesOnSubscribe = false
        do {
            let subscription = store.subscribe { _ in }
            _ = subscription
            #expect(store.subscriberCount == 1)
        }
        #expect(store.subscriberCount == 0)
    }

    @Test("A handler may mutate the store it observes")
    func reentrantHandler() {
        let store = QueryStore.detached(query: TestQuery(), initialValue: 0)
        store.context = testContext()
        store.context.queryFetchesOnSubscribe = false
        let seen = Recorder<Int?>()
        let subscription = store.subscribe { state in
            seen.append(state.currentValue)
            if let value = state.currentValue, value < 3 { store.setValue(value + 1) }
        }
        #expect(seen.values == [0, 1, 2, 3])
        #expect(store.currentValue == 3)
        subscription.cancel()
    }

    @Test("states is an AsyncSequence counted as a subscriber while iterated")
    func statesSequence() async throws {
        let store = QueryStore.detached(query: TestQuery { _ in 9 }, initialValue: nil)
        store.context = testContext()
        let values = try await withHangLimit("the value 9") {
            var values: [Int?] = []
            for await state in store.states {
                values.append(state.currentValue)
                #expect(store.hasSubscribers)
                if state.currentValue == 9 { break }
            }
            return values
        }
        #expect(values.first.flatMap { $0 } == nil && values.count >= 2)
        #expect(values.last == 9)
        await yieldUntil { !store.hasSubscribers }
    }

    @Test("Observation tracking reports state changes")
    func observable() async throws {
        let store = QueryStore.detached(query: TestQuery(), initialValue: nil)
        let changes = Counter()
        withObservationTracking {
            _ = store.currentValue
        } onChange: {
            changes.increment()
        }
        store.setValue(5)
        #expect(changes.count == 1)
    }

    @Test("Yields after the fetch returned are ignored")
    func lateYieldsIgnored() async throws {
        let leaked = Recorder<QueryContinuation<Int>>()
        let store = QueryStore.detached(query: LeakingQuery(leaked: leaked), initialValue: nil)
        store.context = testContext()
        try await store.fetch()
        leaked.values.first?.yield(-1)
        #expect(store.currentValue == 1)
    }
}

private struct LeakingQuery: QueryRequest {
    let leaked: Recorder<QueryContinuation<Int>>
    var path: QueryPath { ["leaking"] }

    func fetch(in context: QueryContext, with continuation: QueryContinuation<Int>) async throws -> Int {
        leaked.append(continuation)
        return 1
    }
}
