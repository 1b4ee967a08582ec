import Foundation
import SQLite
import Testing

@testable import sqlq

@Suite("Demo database", .onProcessThreads)
struct DemoDatabaseTests {
    @Test("Migrations/ is found from the repository")
    func migrations() throws {
        let directory = try #require(DemoDatabase.migrationsDirectory())
        #expect(FileManager.default.fileExists(atPath: directory + "/0001_create_lists_and_items.sql"))
    }

    @Test("The demo database is built in memory: 5 lists, 12,000 items")
    func open() throws {
        let queue = try DemoDatabase.open()
        #expect(queue.path == ":memory:" || queue.path.isEmpty)
        let (lists, items) = try queue.read { db in
            (
                try db.fetchOne(Int.self, "SELECT count(*) FROM lists"),
                try db.fetchOne(Int.self, "SELECT count(*) FROM items")
            )
        }
        #expect(lists == 5)
        #expect(items == 12_000)
    }
}
