#if HTTP
    import Foundation
    import Testing

    /// What one request may take of `sqlq serve`: a connection for at most the time limit, and a
    /// bounded wait for one.
    @Suite("sqlq serve's resources", .serialized, .onProcessThreads)
    struct ServeResourceTests {
        /// The stats' reads running and waiting, and the connections.
        private static func reads(_ server: RunningServer) async throws -> (running: Int, waiting: Int, count: Int) {
            let json = try await server.request("/-/stats.json").json()
            return (
                try #require(json["readsRunning"] as? Int, "\(json)"),
                try #require(json["readsWaiting"] as? Int, "\(json)"),
                try #require(json["readConnections"] as? Int, "\(json)")
            )
        }

        /// Asks the stats until `done` holds of them, at most `hangLimit`.
        private static func waitForReads(
            _ server: RunningServer, _ what: String, until done: ((running: Int, waiting: Int, count: Int)) -> Bool
        ) async throws {
            let deadline = ContinuousClock.now + hangLimit
            while true {
                let reads = try await Self.reads(server)
                if done(reads) { return }
                try #require(ContinuousClock.now < deadline, "waited \(hangLimit) for \(what), in vain: \(reads)")
                try await Task.sleep(for: .milliseconds(20))
            }
        }

        @Test("While every connection is busy, a request waits --wait-limit, then gets 503 with Retry-After")
        func busyServerAnswers503() async throws {
            let database = try ServeTests.notesDatabase()
            // --timeout: a read waits that long for another process's lock, holding its connection.
            try await withServer(["--db", database.path, "--timeout", "600", "--wait-limit", "0.2"]) { server in
                let count = try await Self.reads(server).count
                let holder = try LockHolder(database.path, begin: "BEGIN EXCLUSIVE;")
                let request = "GET /notes.json HTTP/1.1\r\nHost: localhost\r\n\r\n"
                let held = try (0..<count).map { _ in try RawConnection(server) }
                for connection in held { connection.send(request) }
                try await Self.waitForReads(server, "every connection to wait for the lock") { $0.running == count }
                for path in ["/notes.json", "/notes"] {
                    let busy = try await server.request(path)
                    #expect(busy.status == 503, "\(path)")
                    #expect(busy.headers["retry-after"] != nil, "\(path): \(busy.headers)")
                    #expect(busy.body.contains("the server is busy"), "\(path): \(busy.body)")
                }
                try holder.release()
                try await Self.waitForReads(server, "the held requests to be answered") { $0.running == 0 }
                for request in held { request.close() }
                #expect(try await server.request("/notes.json").status == 200)
            }
        }

        /// A statement that never ends by itself: only the time limit, or its client leaving, stops it.
        static let forever =
            "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c WHERE x < 0"

        @Test("A client that leaves stops its query at once, and the requests waiting behind it stop waiting")
        func leavingClientsFreeTheirConnections() async throws {
            let database = try ServeTests.notesDatabase()
            try await withServer(
                ["--db", database.path, "--allow-sql", "--time-limit", "600", "--wait-limit", "600"]
            ) { server in
                let count = try await Self.reads(server).count
                let request = "GET /-/sql.json?sql=\(encoded(Self.forever)) HTTP/1.1\r\nHost: localhost\r\n\r\n"
                let left = try (0..<count + 3).map { _ in try RawConnection(server) }
                for connection in left { connection.send(request) }
                try await Self.waitForReads(server, "every connection to run a query, and 3 to wait") {
                    $0.running == count && $0.waiting == 3
                }
                for connection in left { connection.close() }
                // Without the cancellation, the queries would hold every connection for 600 s.
                try await Self.waitForReads(server, "the queries of the clients that left to stop") {
                    $0.running == 0 && $0.waiting == 0
                }
                #expect(try await server.request("/notes.json").status == 200)
            }
        }

        @Test("A client that leaves while a page's facets are counted stops the count")
        func leavingClientsStopTheirFacets() async throws {
            // The rows and the count of `slow` never compute g; its facet does, and never ends.
            let database = try TestDatabase.with(
                """
                CREATE TABLE t(id INTEGER PRIMARY KEY, x INTEGER);
                INSERT INTO t(x) VALUES (1), (2), (3);
                CREATE VIEW slow AS SELECT id, x, (\(Self.forever)) AS g FROM t;
                """)
            try await withServer(["--db", database.path, "--time-limit", "600"]) { server in
                let connection = try RawConnection(server)
                connection.send("GET /slow?columns=id,x&facet=g HTTP/1.1\r\nHost: localhost\r\n\r\n")
                // The page's first part, the rows and the count, come before the facets.
                try connection.receive(through: "id=\"rows\"")
                try await Self.waitForReads(server, "the facets to be counted") { $0.running == 1 }
                connection.close()
                try await Self.waitForReads(server, "the facets of the client that left to stop") { $0.running == 0 }
                #expect(try await server.request("/slow.json?columns=id").status == 200)
            }
        }

        @Test("A connection's requests are answered one after another on it (keep-alive)")
        func answersKeepTheConnection() async throws {
            let database = try ServeTests.notesDatabase()
            try await withServer(["--db", database.path]) { server in
                let connection = try RawConnection(server)
                for path in ["/notes.json", "/notes.json?sort=-id", "/-/stats.json"] {
                    connection.send("GET \(path) HTTP/1.1\r\nHost: localhost\r\n\r\n")
                    let answer = try connection.receiveAnswer()
                    #expect(answer.status == 200, "\(path): \(answer.body)")
                    #expect(answer.headers["connection"] != "close", "\(path): \(answer.headers)")
                }
            }
        }

        @Test(
            "An answer holds at most 32 MB of values: more is a 413 with what to ask instead, in every kind of answer")
        func answersAreBounded() async throws {
            // Three rows of 12 MB each: any two fit, all three do not.
            let database = try TestDatabase.with(
                """
                CREATE TABLE big(id INTEGER PRIMARY KEY, g INTEGER, data BLOB);
                INSERT INTO big(g, data) VALUES (1, zeroblob(12000000)), (2, zeroblob(12000000)), (3, zeroblob(12000000));
                """)
            try await withServer(["--db", database.path, "--allow-sql"]) { server in
                let sql = "SELECT zeroblob(20000000) FROM (VALUES (1), (2), (3), (4), (5), (6), (7), (8), (9), (10))"
                for path in [
                    "/big.json", "/big.csv", "/big.ndjson", "/big", "/big.json?facet=data",
                    "/-/sql.json?sql=\(encoded(sql))", "/-/sql?sql=\(encoded(sql))",
                    // One value longer than an answer: SQLite refuses to make it.
                    "/-/sql.json?sql=\(encoded("SELECT zeroblob(40000000)"))",
                ] {
                    let answer = try await server.request(path)
                    #expect(answer.status == 413, "\(path): \(answer.status)")
                    #expect(answer.body.contains("more than 32 MB of values"), "\(path): \(answer.body.prefix(300))")
                }
                // Within the bound, the same views answer.
                for path in [
                    "/big.json?columns=id,g", "/big.json?columns=id&facet=g",
                    "/-/sql.json?sql=\(encoded("SELECT length(data) FROM big"))",
                ] {
                    #expect(try await server.request(path).status == 200, "\(path)")
                }
            }
        }

        @Test("The database page refuses parameters in every format")
        func databasePageRefusesParameters() async throws {
            let database = try ServeTests.notesDatabase()
            try await withServer(["--db", database.path]) { server in
                for path in ["/?x=1", "/-/database.json?x=1", "/-/database.sse?x=1"] {
                    let answer = try await server.request(path)
                    #expect(answer.status == 400, "\(path)")
                    #expect(answer.body.contains("takes no parameters"), "\(path): \(answer.body)")
                }
            }
        }
    }
#endif
