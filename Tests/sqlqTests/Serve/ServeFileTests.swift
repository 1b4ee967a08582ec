#if HTTP
    import Foundation
    import Testing

    /// `sqlq serve` follows its database by path: a file moved over it is served in its place,
    /// and while none has the path the server says so.
    @Suite("sqlq serve's database file", .serialized, .onProcessThreads)
    struct ServeFileTests {
        /// A database whose table `t` holds one row, `name`.
        private static func database(_ name: String) throws -> TestDatabase {
            try TestDatabase.with("CREATE TABLE t(name TEXT); INSERT INTO t VALUES ('\(name)');")
        }

        /// `/t.json`'s names, once its status is 200.
        private static func names(_ server: RunningServer) async throws -> [String]? {
            let answer = try await server.request("/t.json")
            guard answer.status == 200 else { return nil }
            let rows = try #require(try answer.json()["rows"] as? [[String: Any]], "\(answer.body)")
            return rows.compactMap { $0["name"] as? String }
        }

        /// Asks `/t.json` until it shows `names`, at most `hangLimit`.
        private static func waitForNames(_ server: RunningServer, _ names: [String]) async throws {
            let deadline = ContinuousClock.now + hangLimit
            while try await Self.names(server) != names {
                try #require(ContinuousClock.now < deadline, "waited \(hangLimit) for /t.json to show \(names)")
                try await Task.sleep(for: .milliseconds(20))
            }
        }

        @Test("A file moved over the database is served in its place; a deleted one gets 503 until one comes back")
        func replacedAndDeletedFile() async throws {
            let served = try Self.database("old")
            try await withServer(["--db", served.path]) { server in
                #expect(try await Self.names(server) == ["old"])
                let replacement = try Self.database("new")
                try #require(rename(replacement.path, served.path) == 0)
                try await Self.waitForNames(server, ["new"])
                // A stream opened now reads the new file.
                let stream = try await server.events("/t.sse")
                let first = try await stream.nextJSON()
                let rows = try #require(first["rows"] as? [[String: Any]], "\(first)")
                #expect(rows.compactMap { $0["name"] as? String } == ["new"])
                stream.close()

                try #require(unlink(served.path) == 0)
                for path in ["/t.json", "/t", "/-/database.json"] {
                    let gone = try await server.request(path)
                    #expect(gone.status == 503, "\(path)")
                    #expect(gone.body.contains("was deleted"), "\(path): \(gone.body)")
                    #expect(gone.body.contains(served.path), "\(path): \(gone.body)")
                }

                let back = try Self.database("back")
                try #require(rename(back.path, served.path) == 0)
                try await Self.waitForNames(server, ["back"])
            }
        }
    }
#endif
