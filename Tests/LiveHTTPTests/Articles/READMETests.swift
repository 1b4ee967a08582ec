import Hummingbird
import LiveHTTP
import SharingSQLite
import Testing

// The README's `LiveHTTP` example. ArticleCodeTests in SQLiteTests checks that the README's
// blocks appear here.

struct READMEExample {
    struct Item: Codable, Sendable, FetchableRow {
        var id: Int64
        var title: String
        var done: Bool
    }

    func router(_ db: DatabasePool) -> Router<BasicRequestContext> {
        let live = LiveEventStreams()
        let router = Router()
        router.get("items", live: live) { request, _ -> SharedReaderKey<[Item]> in
            .fetchAll("SELECT * FROM items WHERE NOT done ORDER BY id", database: db)
        }
        return router
    }
}

@Suite(.timeLimit(.minutes(1)))
struct READMETests {
    @Test func example() async throws {
        let db = try DatabasePool(path: temporaryDatabasePath())
        try await db.write { db in
            try db.execute("CREATE TABLE items(id INTEGER PRIMARY KEY, title TEXT NOT NULL, done BOOLEAN NOT NULL)")
            try db.execute("INSERT INTO items(title, done) VALUES ('milk', 0), ('tea', 1)")
        }
        try await withServer(READMEExample().router(db)) { server in
            let items = try await server.events("/items")
            #expect(try await items.nextEvent().decoded(as: [READMEExample.Item].self).map(\.title) == ["milk"])
            try await db.write { db in try db.execute("UPDATE items SET done = 1 WHERE title = 'milk'") }
            #expect(try await items.nextEvent().decoded(as: [READMEExample.Item].self).isEmpty)
        }
    }
}
