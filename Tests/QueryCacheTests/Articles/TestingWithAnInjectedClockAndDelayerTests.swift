import Foundation
import QueryCache
import Synchronization
import Testing

// The code of the "Testing with an injected clock and delayer" article
// (Sources/QueryCache/QueryCache.docc/TestingWithAnInjectedClockAndDelayer.md).
// ArticleCodeTests in SQLiteTests checks that every Swift block of the article appears here.

enum TestingWithAnInjectedClockAndDelayerArticle {
    /// A clock that moves only when the test moves it.
    final class ManualClock: QueryClock {
        private let date = Mutex(Date(timeIntervalSince1970: 1_700_000_000))

        func now() -> Date { date.withLock { $0 } }
        func advance(by seconds: TimeInterval) { date.withLock { $0.addTimeInterval(seconds) } }
    }

    /// A delayer that returns at once and remembers what it was asked to wait.
    final class RecordedDelays: QueryDelayer {
        private let delays = Mutex<[TimeInterval]>([])

        func delay(for seconds: TimeInterval) async throws {
            delays.withLock { $0.append(seconds) }
        }
        var recorded: [TimeInterval] { delays.withLock { $0 } }
    }

    /// Fails the first `failures` times it runs, then answers `42`.
    struct FlakyQuery: QueryRequest, Hashable {
        let failures: Int
        let attempts = Attempts()

        func fetch(
            in context: QueryContext,
            with continuation: QueryContinuation<Int>
        ) async throws -> Int {
            if attempts.next() <= failures { throw FlakyError() }
            return 42
        }

        static func == (lhs: Self, rhs: Self) -> Bool { lhs.failures == rhs.failures }
        func hash(into hasher: inout Hasher) { hasher.combine(failures) }
    }

    struct FlakyError: Error {}

    final class Attempts: Sendable {
        private let count = Mutex(0)
        func next() -> Int {
            count.withLock {
                $0 += 1
                return $0
            }
        }
    }

    /// Never answers by itself: only a timeout or a cancellation ends it.
    struct HangingQuery: QueryRequest, Hashable {
        func fetch(
            in context: QueryContext,
            with continuation: QueryContinuation<Int>
        ) async throws -> Int {
            try await Task.sleep(for: .seconds(3600))
            return 0
        }
    }
}

@Suite struct TestingWithAnInjectedClockAndDelayerTests {
    typealias ManualClock = TestingWithAnInjectedClockAndDelayerArticle.ManualClock
    typealias RecordedDelays = TestingWithAnInjectedClockAndDelayerArticle.RecordedDelays
    typealias FlakyQuery = TestingWithAnInjectedClockAndDelayerArticle.FlakyQuery
    typealias HangingQuery = TestingWithAnInjectedClockAndDelayerArticle.HangingQuery

    @Test func clock() async throws {
        let clock = ManualClock()
        let store = QueryStore.detached(query: FlakyQuery(failures: 0).stale(after: 60), initialValue: nil)
        store.context.queryClock = clock

        try await store.fetch()
        #expect(store.valueLastUpdatedAt == clock.now())
        #expect(!store.isStale)

        clock.advance(by: 61)
        #expect(store.isStale)
    }

    @Test func retries() async throws {
        let delays = RecordedDelays()
        let store = QueryStore.detached(query: FlakyQuery(failures: 3), initialValue: nil)
        store.context.queryDelayer = delays

        #expect(try await store.fetch() == 42)
        #expect(delays.recorded == [1, 1, 2])  // Fibonacci backoff, never slept

        let quick = QueryStore.detached(query: FlakyQuery(failures: 2), initialValue: nil)
        quick.context.queryDelayer = .noDelay

        #expect(try await quick.fetch() == 42)
    }

    @Test(.timeLimit(.minutes(1))) func timeouts() async throws {
        let store = QueryStore.detached(query: HangingQuery().timeout(30).retry(limit: 0), initialValue: nil)
        store.context.queryTimeoutDelayer = .noDelay  // every timeout fires at once

        await #expect(throws: QueryTimeoutError(seconds: 30)) { try await store.fetch() }
    }
}
