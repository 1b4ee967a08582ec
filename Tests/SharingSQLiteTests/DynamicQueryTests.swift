import Foundation
import Locking
import Synchronization
import Testing

@testable import LiveQuery
@testable import SharingSQLite

/// Holds back the fetches of a gated request until the test opens the gate, or at most
/// `hangLimit`, after which the fetch goes on and the test's expectations fail.
enum Gates {
    private static let gates = Lock<[Int: DispatchSemaphore]>([:])
    private static let counter = Atomic<Int>(0)

    static func make() -> Int {
        let id = counter.add(1, ordering: .relaxed).newValue
        gates.withLock { $0[id] = DispatchSemaphore(value: 0) }
        return id
    }
    static func close(_ id: Int) { gates.withLock { $0[id] = DispatchSemaphore(value: 0) } }
    static func open(_ id: Int) { gates.withLock { $0.removeValue(forKey: id) }?.signal() }
    static func pass(_ id: Int?) {
        if let id, let gate = gates.withLock({ $0[id] }) {
            _ = gate.wait(timeout: .now() + .seconds(Int(hangLimit.components.seconds)))
        }
    }
}

/// The dynamic query of the SharingGRDB documentation (seed 004), with the query builder.
struct Items: FetchKeyRequest {
    var minimumID: Int64 = 0
    var descending = false
    var gate: Int?

    func fetch(_ db: Database) throws -> [Item] {
        Gates.pass(gate)
        return try Table("items")
            .filter(Column("id") >= minimumID)
            .sort(descending ? Column("id").desc : Column("id").asc)
            .limit(10)
            .asRequest(of: Item.self)
            .fetchAll(db)
    }
}

@Suite struct DynamicQueryTests {
    @Test func seedExample() async throws {
        let db = try makeItemsDatabase()
        @SharedReader(value: []) var items: [Item]
        try await $items.load(.fetch(Items(minimumID: 0, descending: true), database: db))
        #expect(items.map(\.title) == ["b", "a"])
        try await $items.load(.fetch(Items(minimumID: 2), database: db))
        #expect(items.map(\.title) == ["b"])
        try await db.write { db in try db.execute("INSERT INTO items(title) VALUES ('c')") }
        try await value(of: $items) { $0.map(\.title) == ["b", "c"] }
    }

    @Test func loadReturnsOnlyOnceTheValueIsInPlace() async throws {
        let db = try makeItemsDatabase()
        let reader = SharedReader<Int>(value: -1)
        // Every key is new and has its own value, so a load that returned before its value
        // reached the reader would show the previous one.
        for offset in 0..<300 {
            try await reader.load(
                .fetchOne("SELECT ? + count(*) FROM items", arguments: [.integer(Int64(offset))], database: db))
            #expect(reader.wrappedValue == offset + 2)
        }
    }

    @Test func switchingBackShowsTheCachedValueAtOnce() async throws {
        let db = try makeItemsDatabase()
        let gate = Gates.make()
        Gates.open(gate)
        let a = SharedReaderKey<[Item]>.fetch(Items(minimumID: 0, gate: gate), database: db)
        let b = SharedReaderKey<[Item]>.fetch(Items(minimumID: 2), database: db)
        let reader = SharedReader<[Item]>(value: [])
        try await reader.load(a)
        #expect(reader.wrappedValue.map(\.title) == ["a", "b"])
        try await reader.load(b)
        #expect(reader.wrappedValue.map(\.title) == ["b"])
        // A commit while A is not shown marks A's cached value stale without refetching it.
        try await db.write { db in try db.execute("INSERT INTO items(title) VALUES ('c')") }
        try await value(of: reader) { $0.map(\.title) == ["b", "c"] }

        Gates.close(gate)
        let loading = Task { try await reader.load(a) }
        // A's cached rows show while its refetch is held back by the gate.
        try await eventually(reader) { $0.wrappedValue.map(\.title) == ["a", "b"] && $0.isLoading }
        Gates.open(gate)
        try await loading.value
        #expect(reader.wrappedValue.map(\.title) == ["a", "b", "c"])
        #expect(!reader.isLoading)
    }

    @Test func unobservedKeyIsNotRefetchedUntilUsed() async throws {
        let db = try makeItemsDatabase()
        let reader = SharedReader<[Item]>(value: [])
        let a = SharedReaderKey<[Item]>.fetchAll("SELECT id, title FROM items ORDER BY id", database: db)
        let b = SharedReaderKey<[Item]>.fetchAll("SELECT id, note FROM other", database: db)
        try await reader.load(a)
        try await reader.load(b)
        let engine = try #require(SQLiteLiveEngine.existing(of: db))
        for index in 0..<5 {
            try await db.write { db in try db.execute("INSERT INTO items(title) VALUES (?)", [.text("\(index)")]) }
        }
        #expect(engine.fetchCount(for: a.id) == 1)
        try await reader.load(a)
        #expect(reader.wrappedValue.count == 7)
        #expect(engine.fetchCount(for: a.id) == 2)
    }
}

@Suite struct FetchKeyRegionTests {
    @Test func aRequestRefetchesOnlyForTheTablesItsStatementsRead() async throws {
        let db = try makeItemsDatabase()
        let reader = SharedReader<[Item]>(value: [])
        let key = SharedReaderKey<[Item]>.fetch(Items(minimumID: 0), database: db)
        try await reader.load(key)
        for index in 0..<5 {
            try await db.write { db in try db.execute("INSERT INTO other(note) VALUES (?)", [.text("\(index)")]) }
        }
        try await db.write { db in try db.execute("INSERT INTO items(title) VALUES ('c')") }
        try await value(of: reader) { $0.count == 3 }
        #expect(reader.fetchCount == 2, "writes to a table the request does not read refetched it")
    }
}
