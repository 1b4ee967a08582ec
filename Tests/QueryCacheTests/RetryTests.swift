import Foundation
import QueryCache
import Testing

@Suite("Retries")
struct RetryTests {
    @Test("Three retries by default, with Fibonacci delays 1, 1, 2")
    func defaultRetries() async throws {
        let indices = Recorder<Int>()
        let query = TestQuery { context in
            indices.append(context.retryIndex)
            throw TestError()
        }
        let store = QueryStore.detached(query: query, initialValue: nil)
        let delayer = RecordingDelayer()
        store.context.queryDelayer = delayer

        await #expect(throws: TestError.self) { try await store.fetch() }
        #expect(query.fetchCount.count == 4)
        #expect(indices.values == [0, 1, 2, 3])
        #expect(delayer.delays == [1, 1, 2])
        #expect(store.error is TestError)
        #expect(!store.isLoading)
    }

    @Test("The backoff sequence follows Fibonacci for longer retry runs")
    func longerSequence() async throws {
        let query = TestQuery { _ in throw TestError() }
        let store = QueryStore.detached(query: query.retry(limit: 6), initialValue: nil)
        let delayer = RecordingDelayer()
        store.context.queryDelayer = delayer
        await #expect(throws: TestError.self) { try await store.fetch() }
        #expect(delayer.delays == [1, 1, 2, 3, 5, 8])
        #expect(query.fetchCount.count == 7)
    }

    @Test("Backoff functions")
    func backoffFunctions() {
        let fibonacci = QueryBackoffFunction.fibonacci(0.5)
        #expect((0...6).map(fibonacci.delay(forRetry:)) == [0, 0.5, 0.5, 1, 1.5, 2.5, 4])
        let exponential = QueryBackoffFunction.exponential(1)
        #expect((1...4).map(exponential.delay(forRetry:)) == [1, 2, 4, 8])
        #expect(QueryBackoffFunction.noBackoff.delay(forRetry: 3) == 0)
    }

    @Test("A custom backoff replaces the delays")
    func customBackoff() async throws {
        let query = TestQuery { _ in throw TestError() }
        let store = QueryStore.detached(
            query: query.retry(limit: 2, backoff: .constant(7)),
            initialValue: nil
        )
        let delayer = RecordingDelayer()
        store.context.queryDelayer = delayer
        await #expect(throws: TestError.self) { try await store.fetch() }
        #expect(delayer.delays == [7, 7])
    }

    @Test("Success after failures stops retrying and clears nothing it should keep")
    func recovers() async throws {
        let query = TestQuery { context in
            if context.retryIndex < 2 { throw TestError() }
            return 42
        }
        let store = QueryStore.detached(query: query, initialValue: nil)
        store.context.queryDelayer = .noDelay
        #expect(try await store.fetch() == 42)
        #expect(query.fetchCount.count == 3)
        #expect(store.error == nil)
        #expect(store.errorUpdateCount == 0)
    }

    @Test("A NonRetryableQueryError fails at once")
    func nonRetryableError() async throws {
        let query = TestQuery { _ in throw FatalTestError() }
        let store = QueryStore.detached(query: query, initialValue: nil)
        let delayer = RecordingDelayer()
        store.context.queryDelayer = delayer
        await #expect(throws: FatalTestError.self) { try await store.fetch() }
        #expect(query.fetchCount.count == 1)
        #expect(delayer.delays.isEmpty)
    }

    @Test("A decoding error fails at once")
    func decodingError() async throws {
        let query = TestQuery { _ in
            try JSONDecoder().decode(Int.self, from: Data("not json".utf8))
        }
        let store = QueryStore.detached(query: query, initialValue: nil)
        store.context.queryDelayer = .noDelay
        await #expect(throws: DecodingError.self) { try await store.fetch() }
        #expect(query.fetchCount.count == 1)
    }

    @Test("A custom predicate decides which errors are retried")
    func customPredicate() async throws {
        struct SQLSyntaxError: Error {}
        let syntax = TestQuery { _ in throw SQLSyntaxError() }
        let busy = TestQuery { _ in throw TestError(message: "busy") }
        let predicate: @Sendable (any Error, QueryContext) -> Bool = { error, _ in
            !(error is SQLSyntaxError)
        }
        let syntaxStore = QueryStore.detached(query: syntax.retry(when: predicate), initialValue: nil)
        let busyStore = QueryStore.detached(query: busy.retry(when: predicate), initialValue: nil)
        syntaxStore.context.queryDelayer = .noDelay
        busyStore.context.queryDelayer = .noDelay
        await #expect(throws: SQLSyntaxError.self) { try await syntaxStore.fetch() }
        await #expect(throws: TestError.self) { try await busyStore.fetch() }
        #expect(syntax.fetchCount.count == 1)
        #expect(busy.fetchCount.count == 4)
    }

    @Test("Failure keeps the previous value")
    func failureKeepsValue() async throws {
        let clock = TestClock()
        let query = TestQuery { _ in throw TestError() }
        let store = QueryStore.detached(query: query.retry(limit: 0), initialValue: 5)
        store.context = testContext(clock: clock)
        await #expect(throws: TestError.self) { try await store.fetch() }
        #expect(store.currentValue == 5)
        #expect(store.errorLastUpdatedAt == clock.now)
    }
}
