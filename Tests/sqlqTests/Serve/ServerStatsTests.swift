#if HTTP
    import ChildProcesses
    import Foundation
    import Testing

    /// `/-/stats.json`: the live readers and how often each was fetched.
    @Suite("sqlq serve's statistics", .serialized, .onProcessThreads)
    struct ServerStatsTests {
        /// The statistics as numbers: the streams open, and each reader's clients and fetches.
        private func stats(_ server: RunningServer) async throws -> (clients: Int, readers: [[Int]]) {
            let answer = try await server.request("/-/stats.json")
            #expect(answer.status == 200)
            #expect(answer.headers["content-type"] == "application/json")
            let json = try answer.json()
            let readers = try #require(json["readers"] as? [[String: Int]])
            return (try #require(json["clients"] as? Int), readers.map { [$0["clients"] ?? -1, $0["fetches"] ?? -1] })
        }

        @Test(
            "Clients of one view share one reader, fetched once per commit by another process",
            .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3")))
        func sharedReaders() async throws {
            let database = try ServeTests.notesDatabase()
            try await withServer(["--db", database.path]) { server in
                #expect(try await stats(server) == (0, []))
                let view = "/notes.sse?where=\(encoded("stars >= 0"))"
                let first = try await server.events(view)
                let second = try await server.events(view)
                let other = try await server.events("/folders.sse")
                for stream in [first, second, other] { _ = try await stream.next() }
                // One reader for the two clients of the same view, each fetched once so far.
                #expect(try await stats(server) == (3, [[2, 1], [1, 1]]))

                try SQLiteShell.run(database.path, "INSERT INTO notes VALUES (5, 1, 'written by the shell', 2)")
                #expect(try await first.nextJSON()["count"] as? Int == 5)
                #expect(try await second.nextJSON()["count"] as? Int == 5)
                // The folders' reader is fetched too, though its value is unchanged (another
                // process's commit does not say which tables it changed), and sends no event.
                #expect(try await stats(server) == (3, [[2, 2], [1, 2]]))
                for stream in [first, second, other] { stream.close() }
            }
        }

        @Test("/-/stats.json takes no other format")
        func onlyJSON() async throws {
            let database = try ServeTests.notesDatabase()
            try await withServer(["--db", database.path]) { server in
                let answer = try await server.request("/-/stats.sse")
                #expect(answer.status == 400)
            }
        }
    }
#endif
