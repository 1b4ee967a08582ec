import ChildProcesses
import Foundation
import Hummingbird
import LiveHTTP
import Testing

@testable import LiveQuery
@testable import SharingSQLite

@Suite(.timeLimit(.minutes(1)))
struct LiveEventStreamsTests {
    @Test func firstEventHoldsTheValueAndEachCommitSendsAnother() async throws {
        let (db, _) = try await makeItemsDatabase()
        let streams = LiveEventStreams()
        try await withServer(itemsRouter(streams, db)) { server in
            let client = try await server.events("/items?list=1")
            #expect(client.status == 200)
            #expect(client.headers["content-type"] == "text/event-stream")
            #expect(client.headers["cache-control"] == "no-store")
            let first = try await client.nextEvent()
            #expect(first.type == nil)
            #expect(try first.decoded(as: [ListItem].self).map(\.title) == ["milk", "bread"])

            try await db.write { db in try db.execute("INSERT INTO items(title, list) VALUES ('eggs', 1)") }
            let second = try await client.nextEvent()
            #expect(try second.decoded(as: [ListItem].self).map(\.title) == ["milk", "bread", "eggs"])
            #expect(try version(of: second) > version(of: first))
        }
    }

    @Test(.enabled(if: hasSQLiteShell, "needs the sqlite3 shell"))
    func commitsOfAnotherProcessReachTheClients() async throws {
        let (db, path) = try await makeItemsDatabase()
        let streams = LiveEventStreams()
        try await withServer(itemsRouter(streams, db)) { server in
            let client = try await server.events("/items?list=2")
            #expect(try await client.nextEvent().decoded(as: [ListItem].self).map(\.title) == ["nails"])
            try SQLiteShell.run(path, "INSERT INTO items(title, list) VALUES ('screws', 2)")
            #expect(try await client.nextEvent().decoded(as: [ListItem].self).map(\.title) == ["nails", "screws"])
            try SQLiteShell.run(path, "DELETE FROM items WHERE title = 'nails'")
            #expect(try await client.nextEvent().decoded(as: [ListItem].self).map(\.title) == ["screws"])
        }
    }

    @Test func reconnectingClientGetsTheCurrentValueOnlyIfItMissedIt() async throws {
        let (db, _) = try await makeItemsDatabase()
        let streams = LiveEventStreams(configuration: .init(heartbeatInterval: .milliseconds(50)))
        try await withServer(itemsRouter(streams, db)) { server in
            let first = try await server.events("/items?list=1").nextEvent()
            let id = try #require(first.id)

            // It has the current value, even though its key's reader was released when the first
            // client left: a heartbeat, which comes after anything posted when the client joined,
            // comes first; the next value follows the next commit.
            let upToDate = try await server.events("/items?list=1", lastEventID: id)
            let firstItem = try await upToDate.nextItem()
            #expect(firstItem == .comment("keep-alive"), "\(firstItem)")
            try await db.write { db in try db.execute("INSERT INTO items(title, list) VALUES ('eggs', 1)") }
            let next = try await upToDate.nextEvent()
            #expect(try next.decoded(as: [ListItem].self).map(\.title) == ["milk", "bread", "eggs"])
            #expect(next.id != id)

            // An older id, or another server's, gets the current value at once.
            for lastEventID in [id, "7-elsewhere", "garbage"] {
                let behind = try await server.events("/items?list=1", lastEventID: lastEventID)
                #expect(try await behind.nextItem() == .event(next))
            }
        }
    }

    @Test func clientsOfOneKeyShareOneQueryReleasedWithTheLastClient() async throws {
        let (db, _) = try await makeItemsDatabase()
        let streams = LiveEventStreams()
        let key = itemsKey(list: 1, db)
        try await withServer(itemsRouter(streams, db)) { server in
            let (a, b) = try await (server.events("/items?list=1"), server.events("/items?list=1"))
            let other = try await server.events("/items?list=2")
            for client in [a, b, other] { _ = try await client.nextEvent() }
            #expect(streams.queryCount == 2)
            #expect(streams.clientCount == 3)

            let released: WeakReference<SharedReader<[ListItem]>>
            do {
                let reader = try #require(streams.reader(for: key))
                released = WeakReference(reader)
                let fetches = reader.fetchCount
                try await db.write { db in try db.execute("INSERT INTO items(title, list) VALUES ('eggs', 1)") }
                for client in [a, b] {
                    #expect(try await client.nextEvent().decoded(as: [ListItem].self).count == 3)
                }
                #expect(reader.fetchCount == fetches + 1, "two clients, one refetch")
            }

            a.close()
            b.close()
            try await until(streams, "list 1's reader released") { $0.queryCount == 1 }
            #expect(released.object == nil)
            #expect(streams.reader(for: key) == nil)

            // The engine no longer refetches list 1: one commit to both lists reaches list 2's
            // client after the round that would have refetched list 1 too.
            let engine = SQLiteLiveEngine.of(db)
            let engineFetches = engine.fetchCount(for: key.id)
            try await db.write { db in
                try db.execute("INSERT INTO items(title, list) VALUES ('jam', 1), ('glue', 2)")
            }
            #expect(try await other.nextEvent().decoded(as: [ListItem].self).map(\.title) == ["nails", "glue"])
            #expect(engine.fetchCount(for: key.id) == engineFetches)
            #expect(streams.clientCount == 1)
        }
    }

    @Test func slowClientIsCoalescedAndNeverDelaysTheOthers() async throws {
        let pool = try DatabasePool(path: temporaryDatabasePath())
        try await pool.write { db in
            try db.execute("CREATE TABLE pages(id INTEGER PRIMARY KEY, n INTEGER NOT NULL, body TEXT NOT NULL)")
            // 16 rows of 16 KB: each event carries 256 KB, so a client that stops reading fills
            // its socket's buffers within a few dozen commits.
            try db.execute(
                """
                WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 16)
                INSERT INTO pages(n, body) SELECT 0, hex(zeroblob(8192)) FROM c
                """)
        }
        let streams = LiveEventStreams()
        let router = Router()
        router.get("pages", live: streams) { _, _ in
            SharedReaderKey<[Page]>.fetchAll("SELECT id, n, body FROM pages ORDER BY id", database: pool)
        }
        try await withServer(router) { server in
            let (fast, slow) = try await (server.events("/pages"), server.events("/pages"))
            _ = try await (fast.nextEvent(), slow.nextEvent())
            slow.pause()

            // Whether the slow client delays the fast one is decided by events, not by a clock: once
            // the paused client's socket is full and it skips values, every further commit must
            // still reach the fast client, each wait bounded by the stream's hang limit.
            var commits: Int64 = 0
            var commitsAfterFallingBehind = 0
            while commitsAfterFallingBehind < 10, commits < 250 {
                commits += 1
                try await pool.write { [commits] db in
                    try db.execute("UPDATE pages SET n = ? WHERE id = 1", [.integer(commits)])
                }
                // Every change reaches the fast client, in order.
                let n = try await fast.nextEvent().decoded(as: [Page].self).first?.n
                try #require(n == commits)
                let statistics = streams.clientStatistics
                try #require(statistics.allSatisfy { $0.pending <= 2 }, "a client's buffer grew: \(statistics)")
                if statistics.contains(where: { $0.skipped >= 3 }) { commitsAfterFallingBehind += 1 }
            }
            #expect(commitsAfterFallingBehind == 10, "the paused client never fell behind in \(commits) commits")

            // Reading again, the slow client gets the latest value, having skipped others.
            slow.resumeReading()
            var received = 0
            var latest: Int64 = 0
            while latest != commits {
                latest = try await slow.nextEvent().decoded(as: [Page].self).first?.n ?? -1
                received += 1
            }
            #expect(received < commits)
        }
    }

    @Test func loadErrorIsAnErrorEventAndTheStreamGoesOn() async throws {
        let (db, _) = try await makeItemsDatabase()
        try await db.write { db in
            try db.execute("CREATE TABLE counters(id INTEGER PRIMARY KEY, n INTEGER NOT NULL)")
            try db.execute("INSERT INTO counters VALUES (1, 5)")
        }
        let streams = LiveEventStreams()
        let router = Router()
        // Not optional: no row is an error.
        router.get("counter", live: streams) { _, _ in
            SharedReaderKey<Int>.fetchOne("SELECT n FROM counters WHERE id = 1", database: db)
        }
        try await withServer(router) { server in
            let client = try await server.events("/counter")
            let first = try await client.nextEvent()
            #expect(first.data == "5")

            try await db.write { db in try db.execute("DELETE FROM counters") }
            let error = try await client.nextEvent()
            #expect(error.type == "error")
            #expect(error.id == nil)
            let message = try error.decoded(as: [String: String].self)["message"] ?? ""
            #expect(message.contains("no row"), "\(message)")

            // A client that joins now gets the last good value, then the error.
            let late = try await server.events("/counter")
            #expect(try await late.nextEvent() == first)
            #expect(try await late.nextEvent() == error)

            // The same value as before the error is sent again: the error is over.
            try await db.write { db in try db.execute("INSERT INTO counters VALUES (1, 5)") }
            for client in [client, late] {
                let recovered = try await client.nextEvent()
                #expect(recovered.type == nil)
                #expect(recovered.data == "5")
                #expect(try version(of: recovered) > version(of: first))
            }
        }
    }

    @Test func keyWhoseFirstLoadFailsSendsTheErrorAndEnds() async throws {
        let (db, _) = try await makeItemsDatabase()
        let streams = LiveEventStreams()
        let router = Router()
        router.get("broken", live: streams) { _, _ in
            SharedReaderKey<[ListItem]>.fetchAll("SELECT id, title, list FROM nowhere", database: db)
        }
        try await withServer(router) { server in
            let client = try await server.events("/broken")
            #expect(client.status == 200)
            let error = try await client.nextEvent()
            #expect(error.type == "error")
            #expect(try error.decoded(as: [String: String].self)["message"]?.contains("no such table: nowhere") == true)
            #expect(try await client.nextItem() == nil)
            try await until(streams, "the failed key's channel closed") { $0.queryCount == 0 && $0.clientCount == 0 }
        }
    }

    @Test func badRequestsGet400WithAMessage() async throws {
        let (db, _) = try await makeItemsDatabase()
        let streams = LiveEventStreams()
        try await withServer(itemsRouter(streams, db)) { server in
            for path in ["/items", "/items?list=first"] {
                let response = try await server.get(path)
                #expect(response.status == 400, "\(path)")
                #expect(response.headers["content-type"] == "text/plain; charset=utf-8")
                #expect(response.body == "`list` must be the number of a list, such as ?list=1\n")
            }
            #expect(streams.clientCount == 0)
        }
    }

    @Test func clientsBeyondTheCapGet503() async throws {
        let (db, _) = try await makeItemsDatabase()
        let streams = LiveEventStreams(configuration: .init(maximumClients: 2))
        try await withServer(itemsRouter(streams, db)) { server in
            let (a, b) = try await (server.events("/items?list=1"), server.events("/items?list=2"))
            _ = try await (a.nextEvent(), b.nextEvent())

            let refused = try await server.get("/items?list=1")
            #expect(refused.status == 503)
            #expect(refused.headers["retry-after"] == "5")
            #expect(refused.body.contains("at most 2 clients at once"), "\(refused.body)")

            a.close()
            try await until(streams, "a client's slot freed") { $0.clientCount == 1 }
            let c = try await server.events("/items?list=1")
            #expect(c.status == 200)
            #expect(try await c.nextEvent().decoded(as: [ListItem].self).count == 2)
        }
    }

    @Test func idleStreamsGetHeartbeats() async throws {
        let (db, _) = try await makeItemsDatabase()
        let streams = LiveEventStreams(configuration: .init(heartbeatInterval: .milliseconds(100)))
        try await withServer(itemsRouter(streams, db)) { server in
            let client = try await server.events("/items?list=1")
            #expect(try await client.nextItem().map { if case .event = $0 { true } else { false } } == true)
            #expect(try await client.nextItem() == .comment("keep-alive"))
            #expect(try await client.nextItem() == .comment("keep-alive"))
        }
    }

    @Test func gracefulShutdownEndsTheStreams() async throws {
        let (db, _) = try await makeItemsDatabase()
        let streams = LiveEventStreams()
        try await withServer(itemsRouter(streams, db)) { server in
            let client = try await server.events("/items?list=1")
            _ = try await client.nextEvent()
            await server.shutDown()
            while try await client.nextItem() != nil {}
            try await until(streams, "the streams ended") { $0.clientCount == 0 && $0.queryCount == 0 }
        }
    }
}

struct Page: Codable, Sendable, FetchableRow {
    var id: Int64
    var n: Int64
    var body: String
}

final class WeakReference<Object: AnyObject & Sendable>: Sendable {
    weak let object: Object?

    init(_ object: Object) { self.object = object }
}

/// The number at the start of an event's id, which grows with every value.
func version(of event: ServerEvent) throws -> Int {
    let id = try #require(event.id)
    return try #require(id.split(separator: "-").first.flatMap { Int($0) })
}
