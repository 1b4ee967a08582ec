import QueryCache
import Testing

@Suite("Timeout")
struct TimeoutTests {
    @Test("An attempt that outlives the timeout fails with QueryTimeoutError")
    func timesOut() async throws {
        let fetchGate = Gate()
        let timeouts = GateDelayer()
        let store = QueryStore.detached(
            query: TestQuery(gate: fetchGate).timeout(5).retry(limit: 0),
            initialValue: nil
        )
        store.context = testContext()
        store.context.queryTimeoutDelayer = timeouts
        store.setValue(1)

        let waiter = Task { try await store.fetch() }
        await fetchGate.arrivals(1)
        await timeouts.gate.arrivals(1)
        timeouts.gate.open()
        await #expect(throws: QueryTimeoutError(seconds: 5)) { try await waiter.value }
        #expect(store.error as? QueryTimeoutError == QueryTimeoutError(seconds: 5))
        #expect(store.currentValue == 1)
        #expect(!store.isLoading)
    }

    @Test("A fetch that finishes in time returns its value")
    func finishesInTime() async throws {
        let store = QueryStore.detached(query: TestQuery { _ in 8 }.timeout(5), initialValue: nil)
        store.context = testContext()
        store.context.queryTimeoutDelayer = GateDelayer()
        #expect(try await store.fetch() == 8)
    }

    @Test("Timeouts are retried like other errors")
    func timeoutsRetry() async throws {
        let query = TestQuery { context in
            if context.retryIndex == 0 { throw QueryTimeoutError(seconds: 1) }
            return 2
        }
        let store = QueryStore.detached(query: query.timeout(60), initialValue: nil)
        store.context = testContext()
        store.context.queryTimeoutDelayer = GateDelayer()
        #expect(try await store.fetch() == 2)
        #expect(query.fetchCount.count == 2)
    }
}
