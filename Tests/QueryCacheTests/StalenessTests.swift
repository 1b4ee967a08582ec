import QueryCache
import Testing

@Suite("Staleness")
struct StalenessTests {
    @Test("A store without a value is stale; a fetched value is fresh by default")
    func defaultStaleness() async throws {
        let store = QueryStore.detached(query: TestQuery(), initialValue: nil)
        store.context = testContext()
        #expect(store.isStale)
        try await store.fetch()
        #expect(!store.isStale)
    }

    @Test("stale(after:) compares valueLastUpdatedAt with the query clock")
    func staleAfterDuration() async throws {
        let clock = TestClock()
        let store = QueryStore.detached(query: TestQuery().stale(after: 60), initialValue: nil)
        store.context.queryClock = clock.queryClock
        try await store.fetch()
        clock.advance(by: 59)
        #expect(!store.isStale)
        clock.advance(by: 1)
        #expect(store.isStale)
    }

    @Test("invalidate(refetch: false) marks stale without fetching; revalidateIfStale fetches")
    func invalidateWithoutRefetch() async throws {
        // The gate stays closed until the refetch has been seen loading: an open gate would let
        // the fetch end on another thread before `isLoading` is read.
        let gate = Gate()
        let query = TestQuery(gate: gate)
        let store = QueryStore.detached(query: query, initialValue: nil)
        store.context = testContext()
        store.setValue(1)
        #expect(!store.revalidateIfStale())

        store.invalidate(refetch: false)
        #expect(store.isStale)
        #expect(!store.isLoading)
        #expect(query.fetchCount.count == 0)

        #expect(store.revalidateIfStale())
        #expect(store.isLoading)
        gate.open()
        await yieldUntil { !store.isLoading }
        #expect(!store.isStale)
        #expect(query.fetchCount.count == 1)
    }

    @Test("setValue makes the value fresh and timestamps it")
    func setValueIsFresh() {
        let clock = TestClock()
        let store = QueryStore.detached(query: TestQuery(), initialValue: nil)
        store.context.queryClock = clock.queryClock
        store.invalidate()
        store.setValue(4)
        #expect(!store.isStale)
        #expect(store.valueLastUpdatedAt == clock.now)
    }

    @Test("Non-optional state starts from its initial value")
    func nonOptionalState() async throws {
        let store = QueryStore.detached(
            query: ItemsQuery(),
            initialState: QueryState(initialValue: [])
        )
        store.context = testContext()
        #expect(store.currentValue == [])
        try await store.fetch()
        #expect(store.currentValue == ["a", "b"])
    }
}

private struct ItemsQuery: QueryRequest, Hashable {
    typealias State = QueryState<[String], [String]>

    func fetch(in context: QueryContext, with continuation: QueryContinuation<[String]>) async throws -> [String] {
        ["a", "b"]
    }
}
