import Foundation
import Testing

@testable import SQLite

private struct Item: TableRecord, FetchableRow, Hashable, Sendable {
    static let tableName = "items"
    var id: Int64
    var timestamp: Date
    init(row: BorrowedRow) throws {
        id = try row["id"]
        timestamp = try row["timestamp"]
    }
}

// Seed 004's dynamic query, as written there, with `.fetchAll(db)` added at its end.
private struct Items: FetchKeyRequest {
    var filterDate: Date?
    var order: SortOrder = .reverse
    func fetch(_ db: Database) throws -> [Item] {
        try Item.all()
            .filter(Column("timestamp") > filterDate ?? .distantPast)
            .sort(
                order == .forward
                    ? Column("timestamp")
                    : Column("timestamp").desc
            )
            .limit(10)
            .fetchAll(db)
    }
}

@Suite("Query builder: seed 004's dynamic query")
struct SeedExampleTests {
    private func makeDatabase() throws -> Database {
        let db = try Database()
        try db.execute("CREATE TABLE items(id INTEGER PRIMARY KEY, timestamp TEXT NOT NULL)")
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        for i in 0..<15 {
            try db.execute(
                "INSERT INTO items(timestamp) VALUES (?)", [try DatabaseValue(start.addingTimeInterval(Double(i) * 60))]
            )
        }
        return db
    }

    @Test("newest ten by default, oldest ten forward, filtered by date")
    func dynamicQuery() throws {
        let db = try makeDatabase()
        #expect(try Items().fetch(db).map(\.id) == Array((6...15).reversed()))
        #expect(try Items(order: .forward).fetch(db).map(\.id) == Array(1...10))
        let cutoff = Date(timeIntervalSince1970: 1_700_000_000 + 11 * 60)
        #expect(try Items(filterDate: cutoff, order: .forward).fetch(db).map(\.id) == [13, 14, 15])
        #expect(try Items(filterDate: Date.distantFuture).fetch(db).isEmpty)
    }

    @Test("requests are hashable keys, and the SQL of a shape does not depend on the values")
    func hashableKeys() throws {
        #expect(Items() == Items())
        #expect(Set([Items(), Items(order: .forward), Items()]).count == 2)
        let db = try makeDatabase()
        _ = try Items(filterDate: Date()).fetch(db)
        let count = db.cachedStatementCount
        _ = try Items(filterDate: Date(timeIntervalSince1970: 0)).fetch(db)
        #expect(db.cachedStatementCount == count)
    }
}
