#if HTTP
    import ChildProcesses
    import Foundation
    import SQLite
    import Testing

    @testable import sqlq

    /// Page tokens through a real `sqlq serve`: each page starts right after the last row of the
    /// one before, whatever was written meanwhile.
    @Suite("sqlq serve: keyset pages", .serialized, .onProcessThreads)
    struct KeysetPaginationTests {
        static func ranksDatabase() throws -> TestDatabase {
            try TestDatabase.with(
                """
                CREATE TABLE players(id INTEGER PRIMARY KEY, name TEXT, score INTEGER);
                INSERT INTO players(name, score) VALUES
                    ('ann', 10), ('bob', 20), ('cid', 20), ('dee', 30), ('eve', 40), ('fay', 50);
                CREATE VIEW ranked AS SELECT name, score FROM players;
                """)
        }

        /// The names of a `.json` page's rows, and its `next` token.
        static func names(_ json: [String: Any]) -> [String] {
            (json["rows"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
        }

        @Test(
            "A row inserted before the page boundary repeats no row on the next page, and skips none",
            .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3")))
        func insertBeforeBoundary() async throws {
            let database = try Self.ranksDatabase()
            try await withServer(["--db", database.path]) { server in
                let first = try await server.request("/players.json?sort=score&size=3").json()
                #expect(Self.names(first) == ["ann", "bob", "cid"])
                let next = try #require(first["next"] as? String)
                // The page's "next page" link carries the same token.
                let page = try await server.request("/players?sort=score&size=3")
                let link =
                    "/players" + (try ViewParameters([("sort", "score"), ("size", "3")])).query { $0.after = next }
                #expect(page.body.contains("<a href=\"\(HTMLEscaper.escape(link))\" rel=\"next\">next page</a>"))
                // Sorts first: with an offset, the next page would start one row early.
                try SQLiteShell.run(database.path, "INSERT INTO players(name, score) VALUES ('abe', 5)")
                let second = try await server.request("/players.json?sort=score&size=3&after=" + encoded(next)).json()
                #expect(Self.names(second) == ["dee", "eve", "fay"])
                #expect(second["next"] is NSNull)
                let secondPage = try await server.request(link)
                #expect(secondPage.body.contains("dee") && !secondPage.body.contains("cid"))
            }
        }

        @Test("A page token that is malformed, damaged, too long, of another view or of the wrong values is a 400")
        func badTokens() async throws {
            let database = try Self.ranksDatabase()
            try await withServer(["--db", database.path]) { server in
                let valid = try #require(
                    try await server.request("/players.json?sort=score&size=2").json()["next"] as? String)
                guard case .keyset(let fingerprint, _) = try PageToken(valid) else {
                    Issue.record("\(valid) is no keyset token")
                    return
                }
                var damaged = Array(valid)
                damaged[3] = damaged[3] == "A" ? "B" : "A"
                let cases: [(view: String, token: String, message: String)] = [
                    ("players?sort=score", "k!!", "after= is not a page token of this server"),
                    ("players?sort=score", String(damaged), "after= is a damaged page token"),
                    (
                        "players?sort=score", "k" + String(repeating: "A", count: 9_000),
                        "after= is too long to be a page token"
                    ),
                    ("players?sort=-score", valid, "after= is a page token of another view, sorted otherwise"),
                    ("players?sort=name", valid, "after= is a page token of another view, sorted otherwise"),
                    (
                        "players?sort=score",
                        PageToken.keyset(fingerprint: fingerprint, values: [.integer(20)]).text,
                        "after= holds 1 value, but this view's order has 2 keys"
                    ),
                    (
                        "players?sort=score",
                        PageToken.keyset(fingerprint: fingerprint, values: [.integer(20), .text("2")]).text,
                        "which is an integer"
                    ),
                    (
                        "ranked?sort=score", valid,
                        "after= is a keyset page token, but this view pages by offset: it has no rowid"
                    ),
                ]
                for (view, token, message) in cases {
                    for path in ["/" + view, "/" + view.replacing("?", with: ".json?")] {
                        let answer = try await server.request(path + "&after=" + encoded(token))
                        #expect(answer.status == 400, "\(path): \(answer.status)")
                        let text =
                            path.contains(".json")
                            ? (try answer.json()["error"] as? String ?? "") : answer.body
                        let shown = path.contains(".json") ? message : HTMLEscaper.escape(message)
                        #expect(text.contains(shown), "\(path): \(text.prefix(300))")
                    }
                }
                // A view of SQL pages by offset.
                let view = try await server.request("/ranked.json?sort=score&size=4").json()
                #expect(view["next"] as? String == "o4")
                #expect(
                    Self.names(try await server.request("/ranked.json?sort=score&size=4&after=o4").json()).count == 2)
            }
        }

        @Test("Walking random views page by page through the server gives the rows of one query")
        func serverDifferential() async throws {
            let database = try TestDatabase.with("")
            var random = SeededGenerator(seed: 2026)
            let tiebreaker = try PageTokenTests.makeTable(try Database(path: database.path), &random)
            try await withServer(["--db", database.path]) { server in
                var pages = 0
                for _ in 0..<6 {
                    let view = PageTokenTests.randomView(&random)
                    let parameters = try PageTokenTests.parameters(view)
                    let expected = try database.read { db in
                        let request = try TableViewRequest(
                            table: "t", parameters: parameters, db: db, timeLimit: .seconds(10))
                        return try PageTokenTests.reference(
                            db, view, tiebreaker: tiebreaker, filter: request.query.filter)
                    }
                    let column = expected.first.map { _ in tiebreaker == "rowid" ? 0 : 1 } ?? 0
                    var numbers: [Int] = []
                    var path = "/t.json" + parameters.query()
                    for _ in 0...41 {
                        let page = try await server.request(path).json()
                        pages += 1
                        numbers += (page["rows"] as? [[String: Any]] ?? []).compactMap { $0["n"] as? Int }
                        guard let next = page["next"] as? String else { break }
                        path = "/t.json" + parameters.query { $0.after = next }
                    }
                    #expect(
                        numbers
                            == expected.map { row -> Int in
                                if case .integer(let n) = row[column] { Int(n) } else { -1 }
                            }, "sort \(view.sort), where \(view.filter ?? "-"), size \(view.size)")
                }
                #expect(pages > 12)
            }
        }
    }
#endif
