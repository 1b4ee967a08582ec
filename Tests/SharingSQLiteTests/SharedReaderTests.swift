import ChildProcesses
import Foundation
import Observation
import Testing

@testable import LiveQuery
@testable import SharingSQLite

@Suite struct SharedReaderTests {
    @Test func fetchAllLoadsAndFollowsCommits() async throws {
        let db = try makeItemsDatabase()
        @SharedReader(.fetchAll("SELECT id, title FROM items ORDER BY id", database: db)) var items: [Item]
        try await value(of: $items) { $0.map(\.title) == ["a", "b"] }
        try await db.write { db in try db.execute("INSERT INTO items(title) VALUES ('c')") }
        try await value(of: $items) { $0.map(\.title) == ["a", "b", "c"] }
        #expect($items.loadError == nil)
        #expect(!$items.isLoading)
    }

    @Test func decodableAndFetchOneKeys() async throws {
        let db = try makeItemsDatabase()
        @SharedReader(.fetchAll("SELECT id, title FROM items ORDER BY id", database: db)) var decoded: [CodableItem]
        @SharedReader(.fetchOne("SELECT id, title FROM items WHERE id = ?", arguments: [2], database: db)) var item:
            Item?
        @SharedReader(wrappedValue: -1, .fetchOne("SELECT count(*) FROM items", database: db)) var count: Int
        @SharedReader(.fetchOne("SELECT title FROM items WHERE id = 99", database: db)) var missing: String?
        try await $decoded.load()
        try await $item.load()
        try await $count.load()
        try await $missing.load()
        #expect(decoded == [CodableItem(id: 1, title: "a"), CodableItem(id: 2, title: "b")])
        #expect(item == Item(id: 2, title: "b"))
        #expect(count == 2)
        #expect(missing == nil)
        try await db.write { db in try db.execute("DELETE FROM items WHERE id = 2") }
        try await value(of: $count) { $0 == 1 }
        try await value(of: $item) { $0 == nil }
    }

    @Test func nonOptionalFetchOneWithoutRowIsATypedError() async throws {
        let db = try makeItemsDatabase()
        let reader = SharedReader<String>(value: "kept")
        await #expect(throws: LiveQueryError.noRow(sql: "SELECT title FROM items WHERE id = 99")) {
            try await reader.load(.fetchOne("SELECT title FROM items WHERE id = 99", database: db))
        }
        #expect(reader.wrappedValue == "kept")
        #expect(reader.loadError as? LiveQueryError == .noRow(sql: "SELECT title FROM items WHERE id = 99"))
    }

    @Test func loadingInitializerStartsWithTheValueAndFollowsCommits() async throws {
        let db = try makeItemsDatabase()
        let count = try await SharedReader(
            loading: .fetchOne("SELECT count(*) FROM items", database: db) as SharedReaderKey<Int>)
        #expect(count.wrappedValue == 2)
        #expect(!count.isLoading)
        try await db.write { db in try db.execute("INSERT INTO items(title) VALUES ('c')") }
        try await value(of: count) { $0 == 3 }
        #expect(count.fetchCount == 2)
    }

    @Test func loadingInitializerThrowsTheFetchError() async throws {
        let db = try makeItemsDatabase()
        await #expect(throws: LiveQueryError.noRow(sql: "SELECT title FROM items WHERE id = 99")) {
            try await SharedReader<String>(loading: .fetchOne("SELECT title FROM items WHERE id = 99", database: db))
        }
        await #expect(throws: SQLiteError.self) {
            try await SharedReader<[Item]>(loading: .fetchAll("SELECT nothing FROM nowhere", database: db))
        }
    }

    @Test func writeToUnrelatedTableDoesNotRefetch() async throws {
        let db = try makeItemsDatabase()
        let reader = SharedReader<[Item]>(value: [])
        try await reader.load(.fetchAll("SELECT id, title FROM items ORDER BY id", database: db))
        #expect(reader.fetchCount == 1)
        try await db.write { db in try db.execute("INSERT INTO other(note) VALUES ('x')") }
        // A later change to the read table, awaited, orders everything before it.
        try await db.write { db in try db.execute("INSERT INTO items(title) VALUES ('c')") }
        try await value(of: reader) { $0.count == 3 }
        #expect(reader.fetchCount == 2)
    }

    @Test func burstOfCommitsIsCoalescedAndEndsOnTheFinalValue() async throws {
        let db = try makeItemsDatabase()
        let readers = (0..<3).map { _ in SharedReader<[Item]>(value: []) }
        for reader in readers {
            try await reader.load(.fetchAll("SELECT id, title FROM items ORDER BY id", database: db))
        }
        for index in 0..<10 {
            try await db.write { db in try db.execute("INSERT INTO items(title) VALUES (?)", [.text("burst \(index)")])
            }
        }
        for reader in readers { try await value(of: reader) { $0.last?.title == "burst 9" && $0.count == 12 } }
        // One initial fetch plus at most one per commit; the readers share them.
        #expect(readers[0].fetchCount <= 11)
        #expect(readers.allSatisfy { $0.wrappedValue.count == 12 })
    }

    @Test func rollbackNotifiesNoOne() async throws {
        let db = try makeItemsDatabase()
        let probe = SharedReaderProbe()
        let reader = SharedReader<[Item]>(value: [], probe: probe)
        try await reader.load(.fetchAll("SELECT id, title FROM items ORDER BY id", database: db))
        struct Abort: Error {}
        await #expect(throws: Abort.self) {
            try await db.write { db in
                try db.execute("INSERT INTO items(title) VALUES ('never')")
                throw Abort()
            }
        }
        try await db.write { db in
            try db.execute("INSERT INTO other(note) VALUES ('kept')")
            _ = try? db.savepoint { db in
                try db.execute("INSERT INTO items(title) VALUES ('undone')")
                throw Abort()
            }
        }
        try await db.write { db in try db.execute("INSERT INTO items(title) VALUES ('c')") }
        try await value(of: reader) { $0.count == 3 }
        #expect(reader.fetchCount == 2)
        #expect(probe.valueChangeCount == 2)
        #expect(!reader.wrappedValue.contains { $0.title == "never" || $0.title == "undone" })
    }

    @Test func sameResultDoesNotNotify() async throws {
        let db = try makeItemsDatabase()
        let probe = SharedReaderProbe()
        let reader = SharedReader<[String]>(value: [], probe: probe)
        let key = SharedReaderKey<[String]>.fetchAll(
            "SELECT title FROM items WHERE id < 100 ORDER BY id", database: db)
        try await reader.load(key)
        // A row the filter of raw SQL does not let through, but which it cannot tell apart: a
        // refetch, with the same result.
        try await db.write { db in try db.execute("INSERT INTO items(id, title) VALUES (1000, 'x')") }
        // Awaited to its end, so that the next commit's refetch is a round of its own, neither
        // coalesced with it nor read by it: the count grows when a round starts, and loading the
        // same key again joins a round in flight.
        let deadline = ContinuousClock.now + hangLimit
        while reader.fetchCount < 2 {
            guard ContinuousClock.now < deadline else { throw TimedOut(description: "the refetch never ran") }
            await Task.yield()
        }
        try await reader.load(key)
        try await db.write { db in try db.execute("INSERT INTO items(id, title) VALUES (3, 'c')") }
        try await value(of: reader) { $0 == ["a", "b", "c"] }
        #expect(reader.fetchCount == 3)
        #expect(probe.valueChangeCount == 2)
    }

    @Test func hundredReadersOfOneKeyRunOneQueryPerChange() async throws {
        let db = try makeItemsDatabase()
        let key = SharedReaderKey<[Item]>.fetchAll("SELECT id, title FROM items ORDER BY id", database: db)
        let readers = (0..<100).map { _ in SharedReader(key) }
        for reader in readers { try await value(of: reader) { $0.count == 2 } }
        #expect(readers[0].fetchCount == 1)
        try await db.write { db in try db.execute("INSERT INTO items(title) VALUES ('c')") }
        for reader in readers { try await value(of: reader) { $0.count == 3 } }
        #expect(readers[0].fetchCount == 2)
    }

    @Test func badQueryThenFixedOne() async throws {
        let db = try makeItemsDatabase()
        let reader = SharedReader<[Item]>(value: [])
        try await reader.load(.fetchAll("SELECT id, title FROM items ORDER BY id", database: db))
        await #expect(throws: SQLiteError.self) {
            try await reader.load(.fetchAll("SELECT id, title FROM missing", database: db))
        }
        #expect(reader.loadError is SQLiteError)
        #expect(reader.wrappedValue.count == 2, "the last good value stays")
        // Still observing: the commit that creates the table brings the value in.
        try await db.write { db in
            try db.execute("CREATE TABLE missing(id INTEGER PRIMARY KEY, title TEXT NOT NULL)")
            try db.execute("INSERT INTO missing(title) VALUES ('found')")
        }
        try await value(of: reader) { $0 == [Item(id: 1, title: "found")] }
        try await eventually(reader) { $0.loadError == nil }
        // And a fixed query clears an error at once.
        _ = try? await reader.load(.fetchAll("SELECT nonsense", database: db))
        #expect(reader.loadError != nil)
        try await reader.load(.fetchAll("SELECT id, title FROM items ORDER BY id", database: db))
        #expect(reader.loadError == nil)
        #expect(reader.wrappedValue.count == 2)
    }

    @Test func noDatabaseIsAnErrorNotACrash() async throws {
        let reader = SharedReader<[Item]>(value: [])
        await #expect(throws: SharingSQLiteError.noDatabase) {
            try await reader.load(.fetchAll("SELECT id, title FROM items"))
        }
        #expect(reader.loadError as? SharingSQLiteError == .noDatabase)
        #expect(!reader.isLoading)
        @SharedReader(.fetchAll("SELECT id, title FROM items")) var items: [Item]
        #expect(items.isEmpty)
        #expect($items.loadError as? SharingSQLiteError == .noDatabase)
        await #expect(throws: LiveQueryError.noKey) { try await SharedReader<Int>(value: 0).load() }
    }

    @Test func defaultDatabaseIsSetOnce() throws {
        let slot = DefaultDatabaseSlot()
        #expect(slot.current == nil)
        let db = try DatabaseQueue()
        try slot.set(db)
        #expect(slot.current === db)
        #expect(throws: SharingSQLiteError.defaultDatabaseAlreadySet) { try slot.set(try DatabaseQueue()) }
    }

    @Test func observationTrackingSeesChanges() async throws {
        let db = try makeItemsDatabase()
        let reader = SharedReader<[Item]>(value: [])
        try await reader.load(.fetchAll("SELECT id, title FROM items ORDER BY id", database: db))
        let (changes, changed) = AsyncStream<Void>.makeStream()
        withObservationTracking {
            _ = reader.wrappedValue
        } onChange: {
            changed.yield()
        }
        try await db.write { db in try db.execute("INSERT INTO items(title) VALUES ('c')") }
        try await eventually(reader) { $0.wrappedValue.count == 3 }
        // Observers are told just after the new value is stored, so the change may follow the value.
        let sawChange = try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                for await _ in changes { return true }
                return false
            }
            group.addTask {
                try await Task.sleep(for: hangLimit)
                return false
            }
            defer { group.cancelAll() }
            return try await group.next() ?? false
        }
        #expect(sawChange)
    }

    @Test func reloadRunsAFreshFetch() async throws {
        let db = try makeItemsDatabase()
        let reader = SharedReader<[Item]>(value: [])
        try await reader.load(.fetchAll("SELECT id, title FROM items ORDER BY id", database: db))
        try await reader.load()
        #expect(reader.fetchCount == 2)
        #expect(!reader.isLoading)
    }

    @Test func poolRefetchesOnReaders() async throws {
        let pool = try DatabasePool(path: temporaryDatabasePath())
        try await pool.write { db in
            try db.execute("CREATE TABLE items(id INTEGER PRIMARY KEY, title TEXT NOT NULL)")
        }
        @SharedReader(.fetchAll("SELECT id, title FROM items ORDER BY id", database: pool)) var items: [Item]
        try await value(of: $items) { $0.isEmpty }
        for index in 0..<20 {
            try await pool.write { db in try db.execute("INSERT INTO items(title) VALUES (?)", [.text("t\(index)")]) }
        }
        try await value(of: $items) { $0.count == 20 }
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3")))
    func commitByAnotherProcessReachesTheReader() async throws {
        let path = temporaryDatabasePath()
        let pool = try DatabasePool(path: path)
        try await pool.write { db in
            try db.execute("CREATE TABLE items(id INTEGER PRIMARY KEY, title TEXT NOT NULL)")
        }
        let reader = SharedReader<[Item]>(value: [])
        try await reader.load(.fetchAll("SELECT id, title FROM items ORDER BY id", database: pool))
        try SQLiteShell.run(path, "INSERT INTO items(title) VALUES ('from the shell')")
        try await value(of: reader) { $0.map(\.title) == ["from the shell"] }
    }

    @Test func valuesStreamStartsWithTheCurrentValue() async throws {
        let db = try makeItemsDatabase()
        @SharedReader(.fetchAll("SELECT title FROM items ORDER BY id", database: db)) var titles: [String]
        var iterator = $titles.values.makeAsyncIterator()
        let first = await iterator.next()
        #expect(first != nil)
        try await value(of: $titles) { $0 == ["a", "b"] }
    }
}
