import Testing

@testable import QueryCache

@Suite("Cancellation")
struct CancellationTests {
    @Test("cancel() mid-fetch keeps the value, stops loading and releases every waiter")
    func cancelMidFetch() async throws {
        let gate = Gate()
        let query = TestQuery(gate: gate) { _ in 2 }
        let store = QueryStore.detached(query: query, initialValue: nil)
        store.context = testContext()
        store.setValue(1)

        let waiters = (0..<3).map { _ in Task { try await store.fetch() } }
        await gate.arrivals(1)
        await yieldUntil { store.waiterCount == 3 }
        store.cancel()

        #expect(!store.isLoading)
        #expect(store.currentValue == 1)
        #expect(store.error == nil)
        for waiter in waiters {
            await #expect(throws: CancellationError.self) { try await waiter.value }
        }
        // The store is usable afterwards.
        gate.open()
        #expect(try await store.fetch() == 2)
    }

    @Test("A fetch that ignores cancellation cannot overwrite the state after cancel()")
    func uncooperativeFetch() async throws {
        let gate = Gate()
        let released = Gate()
        let store = QueryStore.detached(
            query: IgnoresCancellation(gate: gate, released: released),
            initialValue: nil
        )
        store.context = testContext()
        store.setValue(1)

        let waiter = Task { try await store.fetch() }
        await gate.arrivals(1)
        store.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        #expect(!store.isLoading)

        gate.open()
        await released.arrivals(1)
        // The abandoned fetch returns right after that arrival; give it room to try to write.
        for _ in 0..<1_000 { await Task.yield() }
        #expect(store.currentValue == 1)
        #expect(store.valueUpdateCount == 1)
    }

    @Test("Cancelling the only caller's task cancels the fetch")
    func cancelCallerTask() async throws {
        let gate = Gate()
        let query = TestQuery(gate: gate)
        let store = QueryStore.detached(query: query, initialValue: nil)
        store.context = testContext()
        store.setValue(7)

        let waiter = Task { try await store.fetch() }
        await gate.arrivals(1)
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        #expect(!store.isLoading)
        #expect(store.currentValue == 7)
        #expect(store.error == nil)
    }

    @Test("Cancelling one of several callers leaves the fetch running for the others")
    func cancelOneOfMany() async throws {
        let gate = Gate()
        let query = TestQuery(gate: gate) { _ in 3 }
        let store = QueryStore.detached(query: query, initialValue: nil)
        store.context = testContext()

        let cancelled = Task { try await store.fetch() }
        let kept = Task { try await store.fetch() }
        await gate.arrivals(1)
        await yieldUntil { store.waiterCount == 2 }
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        #expect(store.isLoading)
        gate.open()
        #expect(try await kept.value == 3)
        #expect(query.fetchCount.count == 1)
    }

    @Test("A caller whose task is already cancelled returns at once without fetching")
    func alreadyCancelled() async throws {
        let query = TestQuery()
        let store = QueryStore.detached(query: query, initialValue: nil)
        store.context = testContext()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await store.fetch()
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(query.fetchCount.count == 0)
        #expect(!store.isLoading)
    }

    @Test("Cancelling a caller does not stop a fetch subscribers are waiting for")
    func subscribersKeepFetch() async throws {
        let gate = Gate()
        let query = TestQuery(gate: gate)
        let store = QueryStore.detached(query: query, initialValue: nil)
        store.context = testContext()
        store.context.queryFetchesOnSubscribe = false
        let subscription = store.subscribe { _ in }

        let waiter = Task { try await store.fetch() }
        await gate.arrivals(1)
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        #expect(store.isLoading)
        gate.open()
        await yieldUntil { !store.isLoading }
        #expect(store.currentValue == 1)
        subscription.cancel()
    }

    @Test("resetState() mid-fetch cancels it and restores the initial state")
    func resetMidFetch() async throws {
        let gate = Gate()
        let store = QueryStore.detached(query: TestQuery(gate: gate), initialValue: 10)
        store.context = testContext()
        store.setValue(11)
        let waiter = Task { try await store.fetch() }
        await gate.arrivals(1)
        store.resetState()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        #expect(store.currentValue == 10)
        #expect(store.valueUpdateCount == 0)
        #expect(store.valueLastUpdatedAt == nil)
        #expect(!store.isLoading)
    }

    @Test("cancel() with nothing running changes nothing")
    func cancelIdle() {
        let store = QueryStore.detached(query: TestQuery(), initialValue: 1)
        store.cancel()
        #expect(store.currentValue == 1)
        #expect(!store.isLoading)
    }
}

/// Finishes with a value even after cancellation, as badly behaved fetches do.
private struct IgnoresCancellation: QueryRequest {
    let gate: Gate
    let released: Gate
    var path: QueryPath { ["ignores-cancellation"] }

    func fetch(in context: QueryContext, with continuation: QueryContinuation<Int>) async throws -> Int {
        // Waits in an unstructured task, which the store's cancellation does not reach.
        try? await Task { try await gate.wait() }.value
        continuation.yield(50)
        Task { try? await released.wait() }
        return 100
    }
}
