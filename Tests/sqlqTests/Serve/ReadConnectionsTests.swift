#if HTTP
    import AsyncHTTPClient
    import Foundation
    import Locking
    import Testing

    /// The connections that requests other than streams read through, against a real `sqlq serve`.
    @Suite("sqlq serve's read connections", .serialized, .onProcessThreads)
    struct ReadConnectionsTests {
        /// The stats' count of requests reading now, and of connections.
        private static func reads(_ server: RunningServer) async throws -> (running: Int, connections: Int) {
            let json = try await server.request("/-/stats.json").json()
            return (
                try #require(json["readsRunning"] as? Int, "\(json)"),
                try #require(json["readConnections"] as? Int, "\(json)")
            )
        }

        @Test("A request held in a long query does not hold up another; the long one still stops at the time limit")
        func requestsRunSideBySide() async throws {
            let database = try ServeTests.notesDatabase()
            try await withServer(["--db", database.path, "--allow-sql", "--time-limit", "60"]) { server in
                let idle = try await Self.reads(server)
                #expect(idle.running == 0 && idle.connections >= 2)
                // Never ends by itself: only the time limit stops it.
                let forever =
                    "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c WHERE x < 0"
                let finished = Lock(false)
                let (client, url) = (server.client, server.base + "/-/sql.json?sql=" + encoded(forever))
                let slow = Task {
                    defer { finished.withLock { $0 = true } }
                    let response = try await client.execute(HTTPClientRequest(url: url), timeout: .seconds(180))
                    return (Int(response.status.code), String(buffer: try await response.body.collect(upTo: 1 << 20)))
                }
                // Once the slow request reads through a connection, another must pass it.
                let deadline = ContinuousClock.now + hangLimit
                while try await Self.reads(server).running < 1 {
                    try #require(ContinuousClock.now < deadline, "the slow request never started reading")
                    try #require(!finished.withLock { $0 }, "the slow request ended before it was seen reading")
                }
                let quick = try await server.request("/notes.json?sort=id")
                #expect(quick.status == 200)
                #expect(try quick.json()["count"] as? Int == 4)
                #expect(!finished.withLock { $0 }, "the quick request was answered only after the slow one")
                let (status, body) = try await slow.value
                #expect(status == 400)
                #expect(body.contains("the query took longer than the time limit (60 s) and was stopped"), "\(body)")
                #expect(try await Self.reads(server).running == 0)
            }
        }
    }
#endif
