import LiveValueTesting
import Locking
import QueryCache
import Testing

@testable import LiveQuery

@Suite struct LiveQuerySourceTests {
    @Test func anEngineRunsOnASourceThatIsNoDatabase() async throws {
        let source = CountsSource()
        source.counts.withLock { $0 = ["items": 1] }
        let engine = LiveQueryEngine(source: source)
        let path: QueryPath = ["count", "items"]
        var lease: LiveQueryEngine<CountsSource>.Lease?
        // Through a function, so that nothing but `lease` holds the lease.
        func attach() -> QueryStore<QueryState<Int?, Int>> {
            let attached = engine.attach(path, query: UnusedQuery(path: path)) { snapshot in
                (snapshot.counts["items"] ?? 0, DatabaseRegion(tables: ["items"]))
            }
            lease = attached.lease
            return attached.store
        }
        let store = attach()
        #expect(source.calls.withLock { $0 } == ["start"], "the first reader starts a watch, and nothing reads yet")

        try await #require(lease).refresh(fresh: false).get()
        #expect(store.currentValue == 1)
        #expect(source.calls.withLock { $0 } == ["start", "prepare", "read"])
        #expect(source.selection.withLock { $0 } == TableSelection(tables: ["items"]))

        source.counts.withLock { $0 = ["items": 2, "other": 1] }
        engine.didCommit(DatabaseChanges(tables: ["other": []]))
        engine.didCommit(DatabaseChanges(tables: ["items": []]))
        try await until { store.currentValue == 2 }
        #expect(engine.fetchCount(for: path) == 2, "a change to a table the query does not read refetched it")

        engine.didChangeElsewhere(failure: Gone())
        try await until { store.error is Gone }
        #expect(source.calls.withLock { $0.filter { $0 == "read" }.count } == 2, "a failed database is not read")

        lease = nil
        #expect(source.calls.withLock { $0.last } == "stop 1", "the last reader's leaving stops the watch")
    }
}

/// A source that is no database: tables of counts, read whole. It records what the engine asks.
final class CountsSource: LiveQuerySource {
    struct Snapshot {
        let counts: [String: Int]
    }

    let counts = Lock<[String: Int]>([:])
    let calls = Lock<[String]>([])
    let selection = Lock(TableSelection())

    func prepareRounds() {
        calls.withLock { $0.append("prepare") }
    }

    func read<T>(_ body: (Snapshot) throws -> T) throws -> T {
        calls.withLock { $0.append("read") }
        return try body(Snapshot(counts: counts.withLock { $0 }))
    }

    func select(_ tables: TableSelection) {
        selection.withLock { $0 = tables }
    }

    func startWatching() -> Int? {
        calls.withLock { $0.append("start") }
        return 1
    }

    func stopWatching(_ watch: Int) {
        calls.withLock { $0.append("stop \(watch)") }
    }
}

/// Makes the engine's store, which only the engine's rounds feed.
private struct UnusedQuery: QueryRequest {
    let path: QueryPath

    func fetch(in context: QueryContext, with continuation: QueryContinuation<Int>) async throws -> Int {
        Issue.record("a store of the engine fetched by itself")
        return 0
    }
}

private struct Gone: Error {}

/// Polls `condition` until it holds; a failure after `hangLimit`.
private func until(_ condition: () -> Bool) async throws {
    let deadline = ContinuousClock.now + hangLimit
    while !condition() {
        guard ContinuousClock.now < deadline else { throw TimedOut(description: "condition never held") }
        try await Task.sleep(for: .milliseconds(1))
    }
}
