// The examples of the "Multistage Queries" page, as written, with these adaptations:
// - Bodies the page elides (`// ...`, `fetchFreshData()`, `fetchActualEventList(_:)`,
//   `Region.distance(to:)`) are filled in with test doubles. The doubles read a task-local
//   `FreshData` so each test controls them (and can hold them at a gate) without sharing state.
// - `URL.documentsDirectory` becomes a fresh temporary directory, so the test does not write
//   into the user's documents.
// - `url.lines` is Apple-only; an extension below gives file URLs a `lines` `AsyncSequence`.
// - In `NearbyEventsQuery`, `store.currentValue` is optional (the store starts without a value)
//   and the page's undefined `list` is that unwrapped value.

import Foundation
import Locking
import QueryCache
import Testing

// MARK: - Test doubles for the page's elided parts

/// What the page's `fetchFreshData()` and `fetchActualEventList(_:)` return, per test.
struct FreshData: Sendable {
    var value = QueryData(text: "fresh")
    var gate: Gate?
    var calls = Counter()

    @TaskLocal static var current = FreshData()
}

func fetchFreshData() async throws -> QueryData {
    let fresh = FreshData.current
    fresh.calls.increment()
    try await fresh.gate?.wait()
    return fresh.value
}

func fetchActualEventList(_ region: Region) async throws -> EventsList {
    let fresh = FreshData.current
    fresh.calls.increment()
    try await fresh.gate?.wait()
    return EventsList(region: region, events: [Event(name: "actual near \(region.latitude)")])
}

// MARK: - Yielding Cached Data While Fetching Fresh Data

final class Cache: Sendable {
    static let shared = Cache()

    private let storage = Lock<[String: QueryData]>([:])

    subscript(key: String) -> QueryData? {
        get {
            storage.withLock { $0[key] }
        }
        set {
            storage.withLock { $0[key] = newValue }
        }
    }
}

struct QueryData: Codable, Sendable, Equatable {
    var text: String
}

extension QueryData {
    static func cacheableQuery(
        for key: String
    ) -> some QueryRequest<Self, CacheableQuery.State> {
        CacheableQuery(key: key)
    }

    struct CacheableQuery: QueryRequest, Hashable {
        let key: String

        func fetch(
            in context: QueryContext,
            with continuation: QueryContinuation<QueryData>
        ) async throws -> QueryData {
            if let cachedData = Cache.shared[key] {
                continuation.yield(cachedData)
            }
            let freshData = try await fetchFreshData()
            Cache.shared[key] = freshData
            return freshData
        }
    }
}

// The note's variant, which keeps the cache in the context.
extension QueryContext {
    var cache: Cache {
        get { self[CacheKey.self] }
        set { self[CacheKey.self] = newValue }
    }

    private enum CacheKey: Key {
        static var defaultValue: Cache { Cache() }
    }
}

struct ContextCacheableQuery: QueryRequest, Hashable {
    let key: String

    func fetch(
        in context: QueryContext,
        with continuation: QueryContinuation<QueryData>
    ) async throws -> QueryData {
        if let cachedData = context.cache[key] {
            continuation.yield(cachedData)
        }
        let freshData = try await fetchFreshData()
        context.cache[key] = freshData
        return freshData
    }
}

// MARK: - Yielding Errors

extension QueryContext {
    /// Stands in for `URL.documentsDirectory`.
    var documentsDirectory: URL {
        get { self[DocumentsDirectoryKey.self] }
        set { self[DocumentsDirectoryKey.self] = newValue }
    }

    private enum DocumentsDirectoryKey: Key {
        static var defaultValue: URL { FileManager.default.temporaryDirectory }
    }
}

struct DiskCacheableQuery: QueryRequest, Hashable {
    let key: String

    func fetch(
        in context: QueryContext,
        with continuation: QueryContinuation<QueryData>
    ) async throws -> QueryData {
        let path = context.documentsDirectory.appending(path: "cache/\(key)")
        do {
            let rawData = try Data(contentsOf: path)
            let queryData = try JSONDecoder().decode(
                QueryData.self,
                from: rawData
            )
            continuation.yield(queryData)
        } catch {
            continuation.yield(error: error)
        }
        let freshData = try await fetchFreshData()
        try JSONEncoder().encode(freshData).write(to: path)
        return freshData
    }
}

// MARK: - Yielding Data Over Time

extension URL {
    /// Stands in for Apple's `URL.lines`: the lines of a file URL, one element each.
    var lines: AsyncThrowingStream<String, any Error> {
        AsyncThrowingStream { continuation in
            do {
                let text = try String(contentsOf: self, encoding: .utf8)
                for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
                    continuation.yield(String(line))
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
    }
}

struct LinesQuery: QueryRequest, Hashable {
    let url: URL

    func fetch(
        in context: QueryContext,
        with continuation: QueryContinuation<[String]>
    ) async throws -> [String] {
        // Apply a time freeze to the context so that
        // valueLastUpdatedAt remains consistent when
        // many chunks of data are yielded.
        var context = context
        context.queryClock = context.queryClock.frozen()
        var lines = [String]()
        for try await line in url.lines {
            lines.append(line)
            continuation.yield(lines, context)
        }
        return lines
    }
}

// MARK: - Yielding Similar Data Whilst Fetching Actual Data

struct Region: Hashable, Sendable {
    let latitude: Double
    let longitude: Double
    let radius: Double

    func distance(to other: Self) -> Double {
        ((latitude - other.latitude) * (latitude - other.latitude)
            + (longitude - other.longitude) * (longitude - other.longitude)).squareRoot()
    }
}

struct Event: Hashable, Sendable {
    let name: String
}

struct EventsList: Sendable {
    let region: Region
    let events: [Event]
}

extension EventsList {
    static func nearbyQuery(
        for region: Region
    ) -> some QueryRequest<Self, NearbyEventsQuery.State> {
        NearbyEventsQuery(region: region)
    }

    struct NearbyEventsQuery: QueryRequest {
        let region: Region

        var path: QueryPath {
            ["nearby-events", region]
        }

        func fetch(
            in context: QueryContext,
            with continuation: QueryContinuation<EventsList>
        ) async throws -> EventsList {
            guard let client = context.queryClient else {
                return try await fetchActualEventList(region)
            }
            // Look for other EventLists we've fetched and use the data from
            // any that are within the distance threshold.
            for store in client.stores(matching: ["nearby-events"], of: State.self) {
                if let list = store.currentValue, list.region.distance(to: region) < context.distanceThreshold {
                    continuation.yield(EventsList(region: region, events: list.events))
                }
            }
            return try await fetchActualEventList(region)
        }
    }
}

extension QueryContext {
    var distanceThreshold: Double {
        get { self[DistanceThresholdKey.self] }
        set { self[DistanceThresholdKey.self] = newValue }
    }

    private enum DistanceThresholdKey: Key {
        static let defaultValue = 1000.0
    }
}

// MARK: - Tests

@Suite("Seed: Multistage Queries")
struct SeedMultistageQueryTests {
    @Test("Cached data is yielded while isLoading stays true, then fresh data replaces it")
    func yieldsCachedDataWhileFetching() async throws {
        let key = "cacheable-\(UUID())"
        Cache.shared[key] = QueryData(text: "cached")
        let store = QueryStore.detached(query: QueryData.cacheableQuery(for: key), initialValue: nil)
        store.context = testContext()
        let gate = Gate()

        let fetch = FreshData.$current.withValue(FreshData(gate: gate)) {
            Task { try await store.fetch() }
        }
        await gate.arrivals(1)
        #expect(store.currentValue == QueryData(text: "cached"))
        #expect(store.isLoading)

        gate.open()
        #expect(try await fetch.value == QueryData(text: "fresh"))
        #expect(store.currentValue == QueryData(text: "fresh"))
        #expect(!store.isLoading)
        #expect(store.valueUpdateCount == 2)
        #expect(Cache.shared[key] == QueryData(text: "fresh"))
    }

    @Test("Without cached data only the fresh value arrives")
    func noCachedData() async throws {
        let store = QueryStore.detached(
            query: QueryData.cacheableQuery(for: "missing-\(UUID())"),
            initialValue: nil
        )
        store.context = testContext()
        try await store.fetch()
        #expect(store.valueUpdateCount == 1)
        #expect(store.currentValue == QueryData(text: "fresh"))
    }

    @Test("The context-held cache from the note works the same way")
    func contextCache() async throws {
        let cache = Cache()
        cache["k"] = QueryData(text: "cached")
        let store = QueryStore.detached(query: ContextCacheableQuery(key: "k"), initialValue: nil)
        store.context = testContext()
        store.context.cache = cache
        let gate = Gate()

        let fetch = FreshData.$current.withValue(FreshData(gate: gate)) {
            Task { try await store.fetch() }
        }
        await gate.arrivals(1)
        #expect(store.currentValue == QueryData(text: "cached"))
        #expect(store.isLoading)
        gate.open()
        _ = try await fetch.value
        #expect(cache["k"] == QueryData(text: "fresh"))
    }

    @Test("A disk read failure is yielded as an error without failing the query")
    func yieldsErrors() async throws {
        let directory = FileManager.default.temporaryDirectory
            .appending(path: "query-cache-tests-\(UUID())")
        try FileManager.default.createDirectory(
            at: directory.appending(path: "cache"),
            withIntermediateDirectories: true
        )
        defer { try? FileManager.default.removeItem(at: directory) }

        let store = QueryStore.detached(query: DiskCacheableQuery(key: "k"), initialValue: nil)
        store.context = testContext()
        store.context.documentsDirectory = directory
        let gate = Gate()

        let fetch = FreshData.$current.withValue(FreshData(gate: gate)) {
            Task { try await store.fetch() }
        }
        await gate.arrivals(1)
        #expect(store.error != nil)
        #expect(store.errorUpdateCount == 1)
        #expect(store.isLoading)
        #expect(store.currentValue == nil)

        gate.open()
        #expect(try await fetch.value == QueryData(text: "fresh"))
        #expect(store.error == nil)
        #expect(!store.isLoading)

        // The fresh data was written to disk, so the next fetch yields it first.
        let values = Recorder<QueryData?>()
        let subscription = store.subscribe { values.append($0.currentValue) }
        try await FreshData.$current.withValue(FreshData(value: QueryData(text: "fresher"))) {
            try await store.fetch()
        }
        subscription.cancel()
        #expect(values.values.contains(QueryData(text: "fresh")))
        #expect(store.currentValue == QueryData(text: "fresher"))
        #expect(store.errorUpdateCount == 1)
    }

    @Test("Lines yielded with a frozen clock share one valueLastUpdatedAt")
    func yieldsDataOverTime() async throws {
        let file = FileManager.default.temporaryDirectory.appending(path: "lines-\(UUID()).txt")
        try "one\ntwo\nthree".write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }

        // Every reading of this clock is one second later than the previous one.
        let clock = TestClock(autoAdvance: 1)
        let store = QueryStore.detached(query: LinesQuery(url: file), initialValue: nil)
        store.context = testContext(clock: clock)

        let yielded = try await withHangLimit("the lines to load") {
            var yielded: [(lines: [String], date: Date?)] = []
            for await state in store.states {
                if state.isLoading, let lines = state.currentValue {
                    yielded.append((lines, state.valueLastUpdatedAt))
                }
                if !state.isLoading && state.valueUpdateCount > 0 { break }
            }
            return yielded
        }

        #expect(yielded.map(\.lines) == [["one"], ["one", "two"], ["one", "two", "three"]])
        #expect(Set(yielded.map(\.date)).count == 1)
        #expect(store.currentValue == ["one", "two", "three"])
    }

    @Test("Events of a nearby region are yielded while the actual events load")
    func yieldsSimilarData() async throws {
        let client = QueryClient(defaultContext: testContext())
        let here = Region(latitude: 0, longitude: 0, radius: 1)
        let nearby = Region(latitude: 3, longitude: 4, radius: 1)
        let farAway = Region(latitude: 3000, longitude: 4000, radius: 1)

        let first = client.store(for: EventsList.nearbyQuery(for: here))
        try await first.fetch()
        #expect(first.currentValue?.events == [Event(name: "actual near 0.0")])

        let second = client.store(for: EventsList.nearbyQuery(for: nearby))
        let gate = Gate()
        let fetch = FreshData.$current.withValue(FreshData(gate: gate)) {
            Task { try await second.fetch() }
        }
        await gate.arrivals(1)
        #expect(second.currentValue?.region == nearby)
        #expect(second.currentValue?.events == [Event(name: "actual near 0.0")])
        #expect(second.isLoading)
        gate.open()
        _ = try await fetch.value
        #expect(second.currentValue?.events == [Event(name: "actual near 3.0")])

        // No subscriber: a subscription starts a fetch of its own, and once that one had landed,
        // the store's own value would be close enough to yield.
        let far = client.store(for: EventsList.nearbyQuery(for: farAway))
        try await far.fetch()
        // One value: nothing was close enough to yield.
        #expect(far.valueUpdateCount == 1)
    }

    @Test("Without a client the nearby query just fetches")
    func nearbyWithoutClient() async throws {
        let store = QueryStore.detached(
            query: EventsList.nearbyQuery(for: Region(latitude: 1, longitude: 1, radius: 1)),
            initialValue: nil
        )
        store.context = testContext()
        try await store.fetch()
        #expect(store.valueUpdateCount == 1)
    }
}
