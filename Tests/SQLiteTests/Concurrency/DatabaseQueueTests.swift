import CSQLite
import Testing

@testable import SQLite

@Suite("DatabaseQueue")
struct DatabaseQueueTests {
    @Test("the API shape code outside the package relies on")
    func publicShape() async throws {
        struct Item: FetchableRow, Decodable, Sendable {
            var id: Int
            var title: String
            var done: Bool
        }
        let queue = try DatabaseQueue()
        try await queue.write { db in
            try db.execute(
                "CREATE TABLE items(id INTEGER PRIMARY KEY, title TEXT NOT NULL, done INTEGER NOT NULL DEFAULT 0)")
            try db.execute("INSERT INTO items(title, done) VALUES (?, ?)", ["milk", false])
        }
        try await queue.write { db in try db.execute("UPDATE items SET done = 1") }
        let items = try await queue.read { db in try db.fetchAll(Item.self, "SELECT * FROM items") }
        #expect(items.map(\.done) == [true])
        let count = try await queue.read { db in try db.fetchOne(Int.self, "SELECT count(*) FROM items") }
        #expect(count == 1)
        let id = try await queue.write { db in
            try db.execute("INSERT INTO items(title) VALUES ('bread')")
            return db.lastInsertedRowID
        }
        #expect(id == 2)
    }

    @Test("a write that throws rolls back")
    func writeRollsBack() throws {
        struct Boom: Error {}
        let queue = try DatabaseQueue()
        try queue.write { db in try db.execute("CREATE TABLE t(x)") }
        #expect(throws: Boom.self) {
            try queue.write { db in
                try db.execute("INSERT INTO t VALUES (1)")
                throw Boom()
            }
        }
        #expect(try queue.read { db in try db.fetchOne(Int.self, "SELECT count(*) FROM t") } == 0)
    }

    @Test("a read cannot write")
    func readIsReadOnly() throws {
        let queue = try DatabaseQueue()
        try queue.write { db in try db.execute("CREATE TABLE t(x)") }
        let error = #expect(throws: SQLiteError.self) {
            try queue.read { db in try db.execute("INSERT INTO t VALUES (1)") }
        }
        #expect(error?.code == SQLITE_READONLY)
        try queue.write { db in try db.execute("INSERT INTO t VALUES (1)") }
        #expect(try queue.read { db in try db.fetchOne(Int.self, "SELECT count(*) FROM t") } == 1)
    }

    @Test("concurrent tasks are serialized: no increment is lost")
    func serialized() async throws {
        let queue = try DatabaseQueue()
        try await queue.write { db in
            try db.execute("CREATE TABLE counter(n INTEGER NOT NULL)")
            try db.execute("INSERT INTO counter VALUES (0)")
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<200 {
                group.addTask {
                    try await queue.write { db in
                        let n = try db.fetchOne(Int.self, "SELECT n FROM counter") ?? 0
                        try db.execute("UPDATE counter SET n = ?", [.integer(Int64(n + 1))])
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try await queue.read { db in try db.fetchOne(Int.self, "SELECT n FROM counter") } == 200)
    }
}
