import Foundation
import Hummingbird
import LiveHTTP
import SharingSQLite
import Testing

// The code of the "Serving live values" article. ArticleCodeTests in SQLiteTests checks that
// every block of the article appears here.

struct Todo: Codable, Sendable, FetchableRow {
    var id: Int64
    var title: String
    var priority: Int
}

func makeRouter(db: DatabasePool) -> Router<BasicRequestContext> {
    let live = LiveEventStreams()
    let router = Router()
    router.get("todos", live: live) { request, _ -> SharedReaderKey<[Todo]> in
        guard let priority = Int(request.uri.queryParameters["priority"] ?? "1") else {
            throw LiveRequestError("priority must be a number, such as ?priority=3")
        }
        return .fetchAll(
            "SELECT id, title, priority FROM todos WHERE priority >= ? ORDER BY priority DESC, id",
            arguments: [.integer(Int64(priority))], database: db)
    }
    return router
}

/// The article's program: compiled, not run, for it serves on port 8080 until it is stopped.
/// The test runs its router on a port of its own.
func servingLiveValuesProgram() async throws {
    let db = try DatabasePool(path: "todos.sqlite")
    let app = Application(router: makeRouter(db: db), configuration: .init(address: .hostname("127.0.0.1", port: 8080)))
    try await app.runService()
}

@Suite(.timeLimit(.minutes(1)))
struct ServingLiveValuesTests {
    @Test func servesTheFilteredListLive() async throws {
        let db = try DatabasePool(path: temporaryDatabasePath())
        try await db.write { db in
            try db.execute("CREATE TABLE todos(id INTEGER PRIMARY KEY, title TEXT NOT NULL, priority INTEGER NOT NULL)")
            try db.execute("INSERT INTO todos(title, priority) VALUES ('Call the plumber', 4), ('Water the plants', 1)")
        }
        try await withServer(makeRouter(db: db)) { server in
            let urgent = try await server.events("/todos?priority=3")
            #expect(try await urgent.nextEvent().decoded(as: [Todo].self).map(\.title) == ["Call the plumber"])
            try await db.write { db in
                try db.execute("INSERT INTO todos(title, priority) VALUES ('Renew the lease', 3), ('Dust', 1)")
            }
            #expect(
                try await urgent.nextEvent().decoded(as: [Todo].self).map(\.title) == [
                    "Call the plumber", "Renew the lease",
                ])

            let refused = try await server.get("/todos?priority=high")
            #expect(refused.status == 400)
            #expect(refused.body == "priority must be a number, such as ?priority=3\n")
        }
    }

    @Test func configuration() {
        let live = LiveEventStreams(
            configuration: .init(
                heartbeatInterval: .seconds(30), maximumClients: 200,
                errorMessage: { _ in "the list could not be read; it will update when it can" }))
        #expect(live.configuration.heartbeatInterval == .seconds(30))
        #expect(live.configuration.maximumClients == 200)
        #expect(
            live.configuration.errorMessage(CancellationError())
                == "the list could not be read; it will update when it can")
    }
}
