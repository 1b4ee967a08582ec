#if HTTP
    import Foundation
    import SQLite
    import Testing

    @testable import sqlq

    /// A page token is of one kind of paging: a view that pages by keyset refuses an offset
    /// token, and a view that pages by offset a keyset token, rather than give another page.
    @Suite("sqlq serve: page tokens of the other kind of paging", .serialized, .onProcessThreads)
    struct PageTokenKindTests {
        /// `players` pages by keyset (it has a rowid); the view `ranked` by offset.
        static func database() throws -> TestDatabase {
            let long = String(repeating: "z", count: PageToken.maximumLength)
            return try TestDatabase.with(
                """
                CREATE TABLE players(id INTEGER PRIMARY KEY, name TEXT, score INTEGER);
                INSERT INTO players(name, score) VALUES
                    ('ann', 10), ('bob', 20), ('cid', 20), ('\(long)', 30), ('eve', 40), ('fay', 50);
                CREATE VIEW ranked AS SELECT name, score FROM players;
                """)
        }

        /// The error of a 400 answer, from the JSON or from the HTML page.
        static func refusal(_ server: RunningServer, _ path: String) async throws -> [String] {
            var messages: [String] = []
            for path in [path, path.replacing("?", with: ".json?")] {
                let answer = try await server.request(path)
                #expect(answer.status == 400, "\(path): \(answer.status) \(answer.body.prefix(300))")
                messages.append(path.contains(".json") ? (try answer.json()["error"] as? String ?? "") : answer.body)
            }
            return messages
        }

        @Test("An offset token on a keyset view is a 400 with a sentence, never another page")
        func offsetTokenOnKeysetView() async throws {
            let database = try Self.database()
            try await withServer(["--db", database.path]) { server in
                // The token a view of SQL gives, passed to a table's view.
                let offsetView = try await server.request("/ranked.json?sort=score&size=2").json()
                let offset = try #require(offsetView["next"] as? String)
                #expect(offset == "o2")
                for token in [offset, "o0", "o4"] {
                    for message in try await Self.refusal(server, "/players?sort=score&size=2&after=" + token) {
                        #expect(
                            message.contains(
                                "after= is an offset page token, but this view pages by keyset, so a page starts after a row, not at a number of rows"
                            ), "\(token): \(message.prefix(300))")
                    }
                }
            }
        }

        @Test("A keyset view that continues by offset after a key too long for a token ties that token to its order")
        func longKeyContinuation() async throws {
            let database = try Self.database()
            try await withServer(["--db", database.path]) { server in
                // The first row's name is longer than a token holds.
                let first = try await server.request("/players.json?sort=-name&size=1").json()
                let next = try #require(first["next"] as? String)
                #expect(next.hasPrefix("o"))
                let second = try await server.request("/players.json?sort=-name&size=1&after=" + encoded(next)).json()
                let names = (second["rows"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
                #expect(names == ["fay"])
                // Another sort of the same table, and a view that pages by offset, refuse it.
                for message in try await Self.refusal(server, "/players?sort=score&size=1&after=" + encoded(next)) {
                    #expect(
                        message.contains("after= is a page token of another view, sorted otherwise"),
                        "\(message.prefix(300))")
                }
                for message in try await Self.refusal(server, "/ranked?sort=-name&size=1&after=" + encoded(next)) {
                    #expect(
                        message.contains("after= is a keyset page token, but this view pages by offset"),
                        "\(message.prefix(300))")
                }
            }
        }
    }
#endif
