import Foundation
import SharingSQLite
import Testing

// The README's `SharingSQLite` example. ArticleCodeTests in SQLiteTests checks that the README's
// blocks appear here.

struct READMEExample {
    struct Item: Codable, Equatable, Sendable, TableRecord, FetchableRow {
        static let tableName = "items"
        var id: Int64
        var title: String
        var done: Bool
    }

    struct OpenItems: FetchKeyRequest {
        var newestFirst = true
        func fetch(_ db: Database) throws -> [Item] {
            try Item.all().filter(Column("done") == false)
                .sort(newestFirst ? Column("id").desc : Column("id").asc)
                .fetchAll(db)
        }
    }

    func follow(_ db: DatabasePool) async throws -> [Item] {
        @SharedReader(.fetchAll("SELECT * FROM items WHERE NOT done ORDER BY id", database: db))
        var open: [Item]

        @SharedReader(value: []) var items: [Item]  // empty until a key is loaded
        try await $items.load(.fetch(OpenItems(newestFirst: true), database: db))
        try await $items.load(.fetch(OpenItems(newestFirst: false), database: db))  // switch the dynamic query
        try await $items.load(.fetch(OpenItems(newestFirst: true), database: db))  // cached: shown at once

        for await snapshot in $items.values where snapshot.count > 2 { break }  // the value, then every change
        return items
    }
}

@Suite struct READMETests {
    @Test(.timeLimit(.minutes(1))) func example() async throws {
        let db = try DatabasePool(path: temporaryDatabasePath())
        try await db.write { db in
            try db.execute("CREATE TABLE items(id INTEGER PRIMARY KEY, title TEXT NOT NULL, done BOOLEAN NOT NULL)")
            try db.execute("INSERT INTO items(title, done) VALUES ('milk', 0), ('bread', 0), ('eggs', 0), ('tea', 1)")
        }
        let items = try await READMEExample().follow(db)
        #expect(items.map(\.title) == ["eggs", "bread", "milk"])
    }
}
