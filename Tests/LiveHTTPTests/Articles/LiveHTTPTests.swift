import Hummingbird
import LiveHTTP
import SharingSQLite
import Testing

// The code of the module's landing page. ArticleCodeTests in SQLiteTests checks that every block
// of the page appears here.

@Suite(.timeLimit(.minutes(1)))
struct LiveHTTPTests {
    @Test func landingPageExample() async throws {
        let db = try DatabasePool(path: temporaryDatabasePath())
        try await db.write { db in
            try db.execute("CREATE TABLE todos(id INTEGER PRIMARY KEY, title TEXT NOT NULL, priority INTEGER NOT NULL)")
            try db.execute("INSERT INTO todos(title, priority) VALUES ('Dust', 1)")
        }
        let router = Router()

        let live = LiveEventStreams()
        router.get("todos", live: live) { request, _ -> SharedReaderKey<[Todo]> in
            .fetchAll("SELECT id, title, priority FROM todos ORDER BY id", database: db)
        }

        try await withServer(router) { server in
            let todos = try await server.events("/todos")
            #expect(try await todos.nextEvent().decoded(as: [Todo].self).map(\.title) == ["Dust"])
        }
    }
}
