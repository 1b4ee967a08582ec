import Foundation
import QueryCache
import Synchronization
import Testing

// The code of the "Multistage queries" article (Sources/QueryCache/QueryCache.docc/MultistageQueries.md).
// ArticleCodeTests in SQLiteTests checks that every Swift block of the article appears here.

enum MultistageQueriesArticle {
    struct Forecast: Sendable, Equatable {
        var city: String
        var summary: String
    }

    /// Forecasts kept from earlier runs: a dictionary here, a file or a table in a program.
    final class ForecastCache: Sendable {
        private let forecasts = Mutex<[String: Forecast]>([:])
        subscript(city: String) -> Forecast? {
            get { forecasts.withLock { $0[city] } }
            set { forecasts.withLock { $0[city] = newValue } }
        }
    }

    struct ForecastQuery: QueryRequest, Hashable {
        let city: String
        let cache: ForecastCache
        let download: @Sendable (String) async throws -> Forecast

        func fetch(
            in context: QueryContext,
            with continuation: QueryContinuation<Forecast>
        ) async throws -> Forecast {
            if let saved = cache[city] {
                continuation.yield(saved)  // shown at once, while the download runs
            }
            let fresh = try await download(city)
            cache[city] = fresh
            return fresh
        }

        static func == (lhs: Self, rhs: Self) -> Bool { lhs.city == rhs.city }
        func hash(into hasher: inout Hasher) { hasher.combine(city) }
    }

    struct LogLinesQuery: QueryRequest, Hashable {
        let lines: [String]

        func fetch(
            in context: QueryContext,
            with continuation: QueryContinuation<[String]>
        ) async throws -> [String] {
            // One timestamp for every partial value of this fetch.
            var context = context
            context.queryClock = context.queryClock.frozen()
            var read: [String] = []
            for line in lines {
                read.append(line)
                continuation.yield(read, context)
            }
            return read
        }
    }

    struct SettingsQuery: QueryRequest, Hashable {
        let file: URL

        func fetch(
            in context: QueryContext,
            with continuation: QueryContinuation<String>
        ) async throws -> String {
            do {
                continuation.yield(try String(contentsOf: file, encoding: .utf8))
            } catch {
                continuation.yield(error: error)  // reported, and the fetch goes on
            }
            return "defaults"
        }
    }
}

@Suite struct MultistageQueriesTests {
    typealias Forecast = MultistageQueriesArticle.Forecast
    typealias ForecastCache = MultistageQueriesArticle.ForecastCache
    typealias ForecastQuery = MultistageQueriesArticle.ForecastQuery
    typealias LogLinesQuery = MultistageQueriesArticle.LogLinesQuery
    typealias SettingsQuery = MultistageQueriesArticle.SettingsQuery

    @Test(.timeLimit(.minutes(1))) func cachedThenFresh() async throws {
        let cache = ForecastCache()
        cache["Lyon"] = Forecast(city: "Lyon", summary: "rain (yesterday)")
        let gate = Gate()
        let download: @Sendable (String) async throws -> Forecast = { city in
            try await gate.wait()
            return Forecast(city: city, summary: "sun")
        }

        let client = QueryClient()
        let store = client.store(for: ForecastQuery(city: "Lyon", cache: cache, download: download))
        let fetch = Task { try await store.fetch() }

        await gate.arrivals(1)
        #expect(store.currentValue?.summary == "rain (yesterday)")
        #expect(store.isLoading)
        gate.open()

        let forecast = try await fetch.value
        // store.currentValue: the saved forecast while loading, then the downloaded one

        #expect(forecast.summary == "sun")
        #expect(store.currentValue?.summary == "sun")
        #expect(!store.isLoading)
        #expect(cache["Lyon"]?.summary == "sun")
    }

    @Test(.timeLimit(.minutes(1))) func partialValues() async throws {
        let store = QueryStore.detached(query: LogLinesQuery(lines: ["a", "b", "c"]), initialValue: nil)
        // One fetch, the one awaited below: a fetch started by subscribing could end before
        // `fetch()` joins it, and then `fetch()` would run a second one.
        store.context.queryFetchesOnSubscribe = false
        let seen = Recorder<(lines: [String], at: Date?)>()
        let subscription = store.subscribe { state in
            if state.isLoading, let lines = state.currentValue { seen.append((lines, state.valueLastUpdatedAt)) }
        }
        defer { subscription.cancel() }

        let lines = try await store.fetch()

        #expect(lines == ["a", "b", "c"])
        #expect(seen.values.map(\.lines) == [["a"], ["a", "b"], ["a", "b", "c"]])
        #expect(Set(seen.values.map(\.at)).count == 1)
    }

    @Test func errorsOnTheWay() async throws {
        let missing = FileManager.default.temporaryDirectory.appending(path: "missing-\(UUID()).conf")
        let store = QueryStore.detached(query: SettingsQuery(file: missing), initialValue: nil)
        // One fetch, the one awaited below (see partialValues).
        store.context.queryFetchesOnSubscribe = false
        let errors = Recorder<Bool>()
        let subscription = store.subscribe { state in errors.append(state.error != nil) }
        defer { subscription.cancel() }

        #expect(try await store.fetch() == "defaults")
        #expect(errors.values.contains(true))
        #expect(store.error == nil)
        #expect(store.errorUpdateCount == 1)
    }
}
