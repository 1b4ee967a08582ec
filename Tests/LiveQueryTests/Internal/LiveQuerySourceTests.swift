import LiveValueTesting
import Locking
import QueryEviction
import Testing

@testable import LiveQuery

@Suite struct LiveQuerySourceTests {
    @Test func anEngineRunsOnASourceThatIsNoDatabase() async throws {
        let source = CountsSource()
        source.counts.withLock { $0 = ["items": 1] }
        let engine = LiveQueryEngine(source: source)
        let path: QueryPath = ["count", "items"]
        var lease: LiveLease?
        // Through a function, so that nothing but `lease` holds the lease.
        func attach() -> LiveRecord {
            let attached = engine.attach(path) { snapshot in
                (snapshot.counts["items"] ?? 0, DatabaseRegion(tables: ["items"]))
            }
            lease = attached.lease
            return attached.record
        }
        let record = attach()
        #expect(source.calls.withLock { $0 } == ["start"], "the first reader starts a watch, and nothing reads yet")

        try await #require(lease).refresh(fresh: false).get()
        #expect(record.snapshot.value as? Int == 1)
        #expect(source.calls.withLock { $0 } == ["start", "prepare", "read"])
        #expect(source.selection.withLock { $0 } == TableSelection(tables: ["items"]))

        source.counts.withLock { $0 = ["items": 2, "other": 1] }
        engine.didCommit(DatabaseChanges(tables: ["other": []]))
        engine.didCommit(DatabaseChanges(tables: ["items": []]))
        try await until { record.snapshot.value as? Int == 2 }
        #expect(engine.fetchCount(for: path) == 2, "a change to a table the query does not read refetched it")

        engine.didChangeElsewhere(failure: Gone())
        try await until { record.snapshot.error is Gone }
        #expect(source.calls.withLock { $0.filter { $0 == "read" }.count } == 2, "a failed database is not read")

        lease = nil
        #expect(source.calls.withLock { $0.last } == "stop 1", "the last reader's leaving stops the watch")
    }

    @Test func aReaderObservesItsQuerysRecord() async throws {
        let source = CountsSource()
        source.counts.withLock { $0 = ["items": 1, "other": 5] }
        let engine = LiveQueryEngine(source: source)
        func key(_ table: String) -> SharedReaderKey<Int> {
            let path = QueryPath(["count", table])
            return SharedReaderKey(id: path, database: nil) {
                let (record, lease) = engine.attach(path) { snapshot in
                    (snapshot.counts[table] ?? 0, DatabaseRegion(tables: [table]))
                }
                return LiveAttachment(record: record, lease: lease)
            }
        }
        let reader = SharedReader<Int>(value: -1)
        try await reader.load(key("items"))
        let items = try #require(reader.record)
        #expect(items.subscriberCount == 1 && !items.isStale && items.fetchCount == 1)
        #expect(items.snapshot.value as? Int == 1)

        // Away from the query, a commit only marks its record stale.
        try await reader.load(key("other"))
        #expect(items.subscriberCount == 0, "the reader left the record")
        source.counts.withLock { $0["items"] = 2 }
        engine.didCommit(DatabaseChanges(tables: ["items": []]))
        #expect(items.isStale && items.fetchCount == 1)

        // Back to it: the same record, fetched again since it is stale.
        try await reader.load(key("items"))
        #expect(reader.record === items)
        #expect(reader.wrappedValue == 2 && items.fetchCount == 2 && !items.isStale)
        #expect(engine.recordCount == 2)

        // An error is the record's too, and the value stays.
        engine.didChangeElsewhere(failure: Gone())
        try await until { reader.loadError is Gone }
        #expect(items.snapshot.error is Gone && reader.wrappedValue == 2)
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

private struct Gone: Error {}

/// Polls `condition` until it holds; a failure after `hangLimit`.
private func until(_ condition: () -> Bool) async throws {
    let deadline = ContinuousClock.now + hangLimit
    while !condition() {
        guard ContinuousClock.now < deadline else { throw TimedOut(description: "condition never held") }
        try await Task.sleep(for: .milliseconds(1))
    }
}
