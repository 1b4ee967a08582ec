#if HTTP
    import Foundation
    import Testing

    #if canImport(Glibc)
        import Glibc
    #endif

    /// What `sqlq serve` answers to requests that should not reach a page: another host's name
    /// (DNS rebinding), no token, an unknown table or row, a URL too long, bytes that are not HTTP.
    @Suite("sqlq serve's refusals", .serialized, .onProcessThreads)
    struct ServeGuardTests {
        static func database() throws -> TestDatabase {
            try TestDatabase.with(
                """
                CREATE TABLE items(id INTEGER PRIMARY KEY, title TEXT);
                INSERT INTO items VALUES (1, 'one'), (2, 'two');
                CREATE TABLE wr(code TEXT, n INTEGER, v TEXT, PRIMARY KEY (code, n)) WITHOUT ROWID;
                INSERT INTO wr VALUES ('a', 1, 'x');
                """)
        }

        @Test("A request whose Host is not this server's gets 421 with the names it answers to, on every path")
        func otherHost() async throws {
            let database = try Self.database()
            try await withServer(["--db", database.path, "--allow-sql"]) { server in
                let port = try #require(server.base.split(separator: ":").last)
                for host in ["attacker.example", "attacker.example:\(port)", "127.0.0.1.attacker.example"] {
                    for path in [
                        "/items", "/items.json", "/items.sse", "/items/1.json", "/-/sql.json?sql=SELECT+1", "/",
                    ] {
                        let answer = try await server.request(path, headers: [("Host", host)])
                        #expect(answer.status == 421, "\(host) \(path)")
                        #expect(answer.body.contains("--allow-host"), "\(host) \(path): \(answer.body)")
                        #expect(!answer.body.contains("one"), "\(host) \(path)")
                    }
                }
                for host in [
                    "127.0.0.1:\(port)", "127.0.0.1", "localhost:\(port)", "LOCALHOST", "[::1]:\(port)", "[::1]",
                ] {
                    let answer = try await server.request("/items.json", headers: [("Host", host)])
                    #expect(answer.status == 200, "\(host)")
                }
                let answer = try rawRequest(server, Array("GET /items.json HTTP/1.0\r\n\r\n".utf8))
                #expect(answer.status == 400)
                #expect(answer.body.contains("no Host header"), "\(answer.body)")
            }
            try await withServer(["--db", database.path, "--allow-host", "notes.internal"]) { server in
                let allowed = try await server.request("/items.json", headers: [("Host", "notes.internal:80")])
                #expect(allowed.status == 200)
                let other = try await server.request("/items.json", headers: [("Host", "other.internal")])
                #expect(other.status == 421)
            }
        }

        @Test("The token can come from SQLQ_TOKEN or --token-file, and is then required")
        func tokenSources() async throws {
            let database = try Self.database()
            let files = try TemporaryDirectory()
            try await withServer(["--db", database.path], environment: ["SQLQ_TOKEN": "fromenv"]) { server in
                #expect(try await server.request("/items.json").status == 401)
                let answer = try await server.request("/items.json", headers: [("Authorization", "Bearer fromenv")])
                #expect(answer.status == 200)
            }
            let file = try files.write("token", "fromfile\n")
            try await withServer(["--db", database.path, "--token-file", file]) { server in
                #expect(try await server.request("/items.json").status == 401)
                let answer = try await server.request("/items.json", headers: [("Authorization", "Bearer fromfile")])
                #expect(answer.status == 200)
                let wrong = try await server.request("/items.json", headers: [("Authorization", "Bearer fromfil")])
                #expect(wrong.status == 401)
            }
            let empty = try files.write("empty", "\n")
            for arguments in [
                ["--token-file", empty], ["--token-file", files.file("missing").path],
                ["--token", "a", "--token-file", file], ["--token-file", try files.write("spaced", "a b\n")],
            ] {
                let result = try Executable.run(["serve", "--db", database.path, "--port", "0"] + arguments)
                #expect(result.status == 2, "\(arguments)")
                #expect(result.errors.contains("token"), "\(arguments): \(result.errors)")
            }
            let emptyVariable = try Executable.run(
                ["serve", "--db", database.path, "--port", "0"], environment: ["SQLQ_TOKEN": ""])
            #expect(emptyVariable.status == 2)
            #expect(emptyVariable.errors.contains("SQLQ_TOKEN is empty"), "\(emptyVariable.errors)")
            let help = try Executable.run(["serve", "--help"]).output
            #expect(help.contains("--token-file") && help.contains("SQLQ_TOKEN"))
        }

        @Test("An unknown table and a missing row are 404 with a message; a WITHOUT ROWID row says what works")
        func notFound() async throws {
            let database = try Self.database()
            try await withServer(["--db", database.path]) { server in
                for path in ["/nosuch.json", "/nosuch/1.json", "/items/999999.json"] {
                    let answer = try await server.request(path)
                    #expect(answer.status == 404, "\(path)")
                    #expect(try answer.json()["error"] is String, "\(path): \(answer.body)")
                }
                #expect(
                    try await server.request("/items/999999.json").json()["error"] as? String
                        == "items has no row with rowid 999999")
                for path in ["/nosuch", "/items/999999"] {
                    let answer = try await server.request(path)
                    #expect(answer.status == 404, "\(path)")
                    #expect(answer.headers["content-type"] == "text/html; charset=utf-8")
                    #expect(answer.body.contains("class=\"error\""), "\(path)")
                }
                #expect(try await server.request("/items/1.json").status == 200)
                let answer = try await server.request("/wr/1.json")
                #expect(answer.status == 400)
                let message = try #require(try answer.json()["error"] as? String)
                #expect(message.contains("WITHOUT ROWID table"), "\(message)")
                #expect(message.contains("primary key (code, n)"), "\(message)")
                #expect(!message.contains("no such column"), "\(message)")
            }
        }

        @Test("A URL too long is 414, bytes that are not HTTP 400, another method 405: each with a message")
        func malformedRequests() async throws {
            let database = try Self.database()
            try await withServer(["--db", database.path]) { server in
                let long = try await server.request("/items.json?where=" + String(repeating: "a", count: 90_000))
                #expect(long.status == 414)
                #expect(long.body.contains("at most"), "\(long.body)")
                let huge = try rawRequest(
                    server,
                    Array(
                        "GET /items?where=\(String(repeating: "a", count: 1_100_000)) HTTP/1.1\r\nHost: localhost\r\n\r\n"
                            .utf8))
                #expect(huge.status == 414)
                #expect(huge.body.contains("at most"), "\(huge.body)")
                for bytes in [
                    Array("GET /items?where=".utf8) + [0xFF, 0xFE] + Array(" HTTP/1.1\r\nHost: localhost\r\n\r\n".utf8),
                    Array("GET /items".utf8) + [0xC3] + Array(" HTTP/1.1\r\nHost: localhost\r\n\r\n".utf8),
                ] {
                    let answer = try rawRequest(server, bytes)
                    #expect(answer.status == 400)
                    #expect(answer.body.contains("percent-encoded"), "\(answer.body)")
                }
                let post = try await server.request("/items.json", method: .POST)
                #expect(post.status == 405)
                #expect(post.body.contains("GET"), "\(post.body)")
                // The server still answers after each.
                #expect(try await server.request("/items.json").status == 200)
            }
        }
    }
#endif
