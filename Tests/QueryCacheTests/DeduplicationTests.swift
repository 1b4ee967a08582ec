import Testing

@testable import QueryCache

@Suite("Deduplication")
struct DeduplicationTests {
    @Test("1,000 concurrent identical fetches run one fetch")
    func thousandFetchesRunOnce() async throws {
        let gate = Gate()
        let query = TestQuery(gate: gate) { _ in 99 }
        let store = QueryStore.detached(query: query, initialValue: nil)
        store.context = testContext()

        try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<1_000 {
                group.addTask { try await store.fetch() }
            }
            await gate.arrivals(1)
            await yieldUntil { store.waiterCount == 1_000 }
            #expect(store.isLoading)
            gate.open()
            var results = 0
            for try await value in group {
                #expect(value == 99)
                results += 1
            }
            #expect(results == 1_000)
        }
        #expect(query.fetchCount.count == 1)
        #expect(store.valueUpdateCount == 1)
        #expect(!store.isLoading)
    }

    @Test("Clients share one store per path, so fetches through the client dedupe too")
    func clientDedupes() async throws {
        let client = QueryClient(defaultContext: testContext())
        let gate = Gate()
        let query = TestQuery(["shared"], gate: gate)
        async let first = client.store(for: query).fetch()
        async let second = client.store(for: query).fetch()
        await gate.arrivals(1)
        await yieldUntil { client.store(for: query).waiterCount == 2 }
        gate.open()
        let values = try await [first, second]
        #expect(values == [1, 1])
        #expect(query.fetchCount.count == 1)
    }

    @Test("With deduplication off a new fetch replaces the running one and both callers get its result")
    func deduplicationOff() async throws {
        let attempt = Counter()
        let firstGate = Gate()
        let query = TestQuery { _ in attempt.count }
        let store = QueryStore.detached(
            query: GatedFirstAttempt(base: query, gate: firstGate, attempts: attempt),
            initialValue: nil
        )
        store.context = testContext()
        store.context.queryDeduplicatesFetches = false

        let first = Task { try await store.fetch() }
        await firstGate.arrivals(1)
        let second = try await store.fetch()
        #expect(second == 2)
        #expect(try await first.value == 2)
        #expect(attempt.count == 2)
        #expect(!store.isLoading)
    }
}

/// Holds only the first attempt at a gate, so a second fetch can overtake it.
private struct GatedFirstAttempt: QueryRequest {
    let base: TestQuery
    let gate: Gate
    let attempts: Counter

    var path: QueryPath { base.path }

    func fetch(in context: QueryContext, with continuation: QueryContinuation<Int>) async throws -> Int {
        if attempts.increment() == 1 { try await gate.wait() }
        return try await base.fetch(in: context, with: continuation)
    }
}
