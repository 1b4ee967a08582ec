import Foundation
import LiveValueTesting
import Locking
import QueryEviction
import Testing

@testable import LiveQuery
@testable import SharingSQLite

/// A clock that moves only when the test moves it, for eviction.
final class ManualClock: Sendable {
    private let date = Lock(Date(timeIntervalSince1970: 1_000_000))
    var now: Date { date.withLock { $0 } }
    func advance(by seconds: TimeInterval) { date.withLock { $0.addTimeInterval(seconds) } }
}

// Serialized: one test changes the cache limits of every live database.
@Suite(.serialized) struct LiveQueryEngineTests {
    /// Two items, and a table no query of these tests reads.
    private static func makeItemsDatabase() throws -> DatabaseQueue {
        let db = try DatabaseQueue()
        try db.write { db in
            try db.execute("CREATE TABLE items(id INTEGER PRIMARY KEY, title TEXT NOT NULL)")
            try db.execute("CREATE TABLE other(id INTEGER PRIMARY KEY, note TEXT)")
            try db.execute("INSERT INTO items(title) VALUES ('a'), ('b')")
        }
        return db
    }

    @Test func commitsToTablesNobodyReadsFetchNothing() async throws {
        let db = try Self.makeItemsDatabase()
        let readers = (0..<20).map { _ in SharedReader<Int>(value: -1) }
        for (index, reader) in readers.enumerated() {
            try await reader.load(
                .fetchOne("SELECT count(*) FROM other WHERE id > ?", arguments: [.integer(Int64(-index))], database: db)
            )
        }
        for index in 0..<20 {
            try await db.write { db in try db.execute("INSERT INTO items(title) VALUES (?)", [.text("\(index)")]) }
        }
        try await db.write { db in try db.execute("INSERT INTO other(note) VALUES ('x')") }
        for reader in readers {
            try await value(of: reader) { $0 == 1 }
            #expect(reader.fetchCount == 2)
        }
    }

    @Test func valuesNeverGoBackUnderABurst() async throws {
        let pool = try DatabasePool(path: temporaryDatabasePath())
        try await pool.write { db in try db.execute("CREATE TABLE items(id INTEGER PRIMARY KEY, title TEXT NOT NULL)") }
        let reader = SharedReader<Int>(value: -1)
        try await reader.load(.fetchOne("SELECT count(*) FROM items", database: pool))
        let seen = Task {
            var seen: [Int] = []
            for await count in reader.values {
                seen.append(count)
                if count == 100 { break }
            }
            return seen
        }
        for index in 0..<100 {
            try await pool.write { db in try db.execute("INSERT INTO items(title) VALUES (?)", [.text("\(index)")]) }
        }
        let counts = try await value(of: seen, waitingFor: "the count to reach 100")
        #expect(counts.last == 100)
        #expect(counts == counts.sorted(), "a value was overtaken by an older one: \(counts)")
    }

    @Test func aFailingQueryDoesNotHoldBackTheOthersOfItsRound() async throws {
        let db = try Self.makeItemsDatabase()
        let good = SharedReader<Int>(value: -1)
        let bad = SharedReader<Int>(value: -1)
        try await good.load(.fetchOne("SELECT count(*) FROM items", database: db))
        await #expect(throws: SQLiteError.self) {
            try await bad.load(.fetchOne("SELECT count(*) FROM missing", database: db))
        }
        for index in 0..<5 {
            try await db.write { db in try db.execute("INSERT INTO items(title) VALUES (?)", [.text("\(index)")]) }
        }
        try await value(of: good) { $0 == 7 }
        #expect(good.loadError == nil)
        #expect(bad.loadError is SQLiteError)
        #expect(bad.wrappedValue == -1)
    }

    @Test func readerCreatedWithAKeyStopsLoadingOnceFetched() async throws {
        let db = try Self.makeItemsDatabase()
        @SharedReader(wrappedValue: -1, .fetchOne("SELECT count(*) FROM items", database: db)) var count: Int
        try await eventually($count) { $0.wrappedValue == 2 && !$0.isLoading }
    }

    @Test func theEngineEvictsWhatNobodyReads() async throws {
        let db = try Self.makeItemsDatabase()
        let engine = SQLiteLiveEngine.of(db)
        let clock = ManualClock()
        engine.queryClock = .custom { clock.now }
        engine.evictionPolicy = QueryEvictionPolicy(idleTimeout: 10, maxStoreCount: 3)
        let reader = SharedReader<Int>(value: -1)
        func key(_ minimum: Int) -> SharedReaderKey<Int> {
            .fetchOne("SELECT count(*) FROM items WHERE id >= ?", arguments: [.integer(Int64(minimum))], database: db)
        }
        for minimum in 0..<10 {
            try await reader.load(key(minimum))
            #expect(engine.recordCount <= 3)
        }
        #expect(engine.indexedQueryCount == engine.recordCount)

        clock.advance(by: 10)
        engine.evictExpired()
        #expect(engine.recordCount == 1, "only the query the reader shows stays")
        #expect(engine.indexedQueryCount == 1)

        // An evicted query loads again from the database, and is observed again.
        try await reader.load(key(2))
        #expect(reader.wrappedValue == 1)
        try await db.write { db in try db.execute("INSERT INTO items(title) VALUES ('c')") }
        try await value(of: reader) { $0 == 2 }
        #expect(engine.fetchCount(for: key(5).id) == 0, "an evicted query is not refetched")
        withExtendedLifetime(engine) {}
    }

    @Test func cacheLimitsReachLiveDatabases() throws {
        let db = try Self.makeItemsDatabase()
        @SharedReader(wrappedValue: -1, .fetchOne("SELECT count(*) FROM items", database: db)) var count: Int
        let engine = try #require(SQLiteLiveEngine.existing(of: db))
        #expect(SharedReaderCache.storeCount(for: db) == 1)
        #expect(engine.evictionPolicy.maxStoreCount == SharedReaderCache.maxStoreCount)
        // A larger limit than the default, so that other tests running now are not affected.
        let previous = SharedReaderCache.maxStoreCount
        defer { SharedReaderCache.maxStoreCount = previous }
        SharedReaderCache.maxStoreCount = 5_000
        #expect(engine.evictionPolicy.maxStoreCount == 5_000)
        #expect(SharedReaderCache.storeCount(for: try DatabaseQueue()) == 0)
    }
}
