#if HTTP
    import ChildProcesses
    import Foundation
    import SQLite
    import Testing

    @testable import sqlq

    /// `sqlq serve` as a browser and a program use it: a real server process, real HTTP.
    @Suite("sqlq serve", .serialized, .onProcessThreads)
    struct ServeTests {
        /// A small database with a foreign key, a view, and cells that HTML must escape.
        static func notesDatabase() throws -> TestDatabase {
            try TestDatabase.with(
                """
                CREATE TABLE folders(id INTEGER PRIMARY KEY, name TEXT NOT NULL);
                CREATE TABLE notes(id INTEGER PRIMARY KEY, folder_id INTEGER REFERENCES folders(id), body TEXT, stars INTEGER);
                CREATE VIEW starred AS SELECT id, body FROM notes WHERE stars > 0;
                INSERT INTO folders VALUES (1, 'Inbox'), (2, 'Archive <old>');
                INSERT INTO notes VALUES
                    (1, 1, '<script>alert(1)</script>', 3),
                    (2, 1, '"quoted'' & <img src=x onerror=alert(1)>', 0),
                    (3, 2, 'bell' || char(7) || ' escape' || char(27) || '[31m end', 1),
                    (4, NULL, 'plain', 0);
                """)
        }

        static let escapeCells = ["<script>alert(1)</script>", "<img src=x onerror=alert(1)>", "\u{7}", "\u{1B}"]

        // MARK: Pages

        @Test("The database page lists the tables and views with their row counts, and says it is read-only")
        func databasePage() async throws {
            let database = try Self.notesDatabase()
            try await withServer(["--db", database.path]) { server in
                let page = try await server.request("/")
                #expect(page.status == 200)
                #expect(page.headers["content-type"] == "text/html; charset=utf-8")
                for row in [
                    "<a href=\"/folders\">folders</a></td><td>table</td><td class=\"number\">2</td>",
                    "<a href=\"/notes\">notes</a></td><td>table</td><td class=\"number\">4</td>",
                    "<a href=\"/starred\">starred</a></td><td>view</td><td class=\"number\">2</td>",
                ] {
                    #expect(page.body.contains(row), "\(row)")
                }
                #expect(page.body.contains("Read-only: the file is opened read-only, and PRAGMA query_only is on"))
                let json = try await server.request("/-/database.json").json()
                let tables = try #require(json["tables"] as? [[String: Any]])
                #expect(tables.map { $0["name"] as? String } == ["folders", "notes", "starred"])
                #expect(json["openedReadOnly"] as? Bool == true)
            }
        }

        @Test("The table page shows the rows, the count, facets whose values add to the filter, labels and sort links")
        func tablePage() async throws {
            let database = try Self.notesDatabase()
            try await withServer(["--db", database.path]) { server in
                let page = try await server.request("/notes?where=\(encoded("stars >= 0"))&facet=folder_id&sort=-id")
                #expect(page.status == 200)
                #expect(page.body.contains("<p id=\"count\" data-live>4 rows match</p>"))
                // The foreign key shows the parent's label, linking to the parent row's page.
                #expect(
                    page.body.contains(
                        "<a href=\"/folders/2\" class=\"label\">Archive &lt;old&gt;</a> <span class=\"key\">2</span>"))
                // A facet value's link keeps the filter and adds `column = value`.
                #expect(
                    page.body.contains(
                        "<a href=\"/notes?where=stars%20%3E%3D%200&amp;where=%22folder_id%22%20%3D%201&amp;sort=-id&amp;facet=folder_id\" class=\"label\">Inbox</a> <span class=\"key\">1</span> <span class=\"count\">2</span>"
                    ))
                // The sorted column's header sorts the other way.
                #expect(
                    page.body.contains(
                        "<a href=\"/notes?where=stars%20%3E%3D%200&amp;sort=id&amp;facet=folder_id\">id</a>")
                )
                #expect(
                    page.body.contains(
                        "<tr data-key=\"4\"><td><a href=\"/notes/4\">4</a></td><td><span class=\"null\">null</span>"))
                #expect(
                    page.body.contains(
                        "<a href=\"/notes.json?where=stars%20%3E%3D%200&amp;sort=-id&amp;facet=folder_id\">JSON</a>"))
                #expect(page.body.contains("<a href=\"/notes.csv?"))
                #expect(page.body.contains("<a href=\"/notes.ndjson?"))
                // The form keeps the view, and works without script: a plain GET.
                #expect(page.body.contains("<form method=\"get\" action=\"/notes\" class=\"view\">"))
                #expect(page.body.contains("<input name=\"where\" size=\"50\" value=\"stars &gt;= 0\">"))
                #expect(
                    page.body.contains(
                        "<body data-live-source=\"/notes.sse?where=stars%20%3E%3D%200&amp;sort=-id&amp;facet=folder_id\">"
                    ))

                // The facet's link, followed, narrows the rows.
                let narrowed = try await server.request("/notes?where=\(encoded("\"folder_id\" = 1"))")
                #expect(narrowed.body.contains("2 rows match"))

                // A table with a full-text index gets a search box, and search= finds by word prefix.
                try SQLiteShell.run(
                    database.path,
                    "CREATE VIRTUAL TABLE notes_fts USING fts5(body, content='notes', content_rowid='id'); "
                        + "INSERT INTO notes_fts(notes_fts) VALUES ('rebuild');")
                let searched = try await server.request("/notes?search=pla")
                #expect(searched.body.contains("<input name=\"search\" value=\"pla\">"))
                #expect(searched.body.contains("1 row matches"))
                #expect(searched.body.contains("<td>plain</td>"))

                let row = try await server.request("/folders/1")
                #expect(row.status == 200)
                #expect(
                    row.body.contains(
                        "<a href=\"/notes?where=%22folder_id%22%20%3D%201\">2 rows of notes</a> through folder_id"))
            }
        }

        @Test("Pages hold no inline script or style, and every answer has the Content-Security-Policy")
        func contentSecurityPolicy() async throws {
            let database = try Self.notesDatabase()
            try await withServer(["--db", database.path]) { server in
                for path in [
                    "/", "/notes", "/notes/1", "/notes.json", "/nope", "/-/sqlq.js", "/-/sqlq.css", "/notes?where=x",
                ] {
                    let answer = try await server.request(path)
                    #expect(
                        answer.headers["content-security-policy"]
                            == "default-src 'self'; script-src 'self'; style-src 'self'",
                        "\(path)")
                    #expect(answer.headers["x-content-type-options"] == "nosniff")
                    if answer.headers["content-type"]?.hasPrefix("text/html") == true {
                        let scripts = answer.body.components(separatedBy: "<script").count - 1
                        #expect(
                            scripts == 1 && answer.body.contains("<script src=\"/-/sqlq.js\" defer></script>"),
                            "\(path)")
                        #expect(!answer.body.contains("<style") && !answer.body.contains(" style="), "\(path)")
                        #expect(
                            answer.body.firstMatch(of: #/<[^>]*\son[a-z]+=/#) == nil,
                            "an event handler attribute in \(path)")
                    }
                }
                let script = try await server.request("/-/sqlq.js")
                #expect(script.headers["content-type"] == "text/javascript; charset=utf-8")
                #expect(script.body.contains("new EventSource(source)"))
            }
        }

        @Test("Cells, names and errors holding markup, quotes and control characters are escaped")
        func escaping() async throws {
            let database = try Self.notesDatabase()
            try SQLiteShell.run(
                database.path,
                #"CREATE TABLE "<b>odd" ("<i>c" TEXT); INSERT INTO "<b>odd" VALUES ('<script>x</script>');"#)
            try await withServer(["--db", database.path]) { server in
                for path in [
                    "/", "/notes", "/notes/1", "/notes/2", "/notes/3", "/starred", "/%3Cb%3Eodd",
                    "/%3Cb%3Eodd?facet=%3Ci%3Ec",
                    "/notes?where=\(encoded("body = '<script>alert(1)</script>' and"))",
                    "/notes?where=\(encoded("<img src=x onerror=alert(1)>"))", "/%3Cscript%3E",
                ] {
                    let answer = try await server.request(path)
                    for raw in Self.escapeCells + ["<b>", "<i>", "<script>x"] {
                        #expect(!answer.body.contains(raw), "\(path) holds \(raw.debugDescription) raw")
                    }
                }
                let notes = try await server.request("/notes")
                #expect(notes.body.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
                #expect(notes.body.contains("&quot;quoted&#39; &amp; &lt;img src=x onerror=alert(1)&gt;"))
                // Control characters are shown as the symbols that picture them.
                #expect(notes.body.contains("bell\u{2407} escape\u{241B}[31m end"))
            }
        }

        // MARK: The API

        @Test("TABLE.json holds the rows as sqlq query --format json prints them, with the count, facets and next page")
        func jsonShape() async throws {
            let database = try TestDatabase.demo()
            try await withServer(["--db", database.path]) { server in
                let filter = "priority >= 4 and not done"
                let view = "where=\(encoded(filter))&sort=-due,id&facet=list_id&size=3"
                let page = try await server.request("/items.json?" + view)
                #expect(page.status == 200)
                #expect(page.headers["content-type"] == "application/json")
                let json = try page.json()
                #expect(Set(json.keys) == ["table", "columns", "rows", "count", "facets", "next", "labels"])
                #expect(json["table"] as? String == "items")
                #expect(
                    json["count"] as? Int
                        == (try database.count("SELECT count(*) FROM items WHERE priority >= 4 AND NOT done")))
                // A keyset token: the last row's sort keys, opaque.
                let next = try #require(json["next"] as? String)
                #expect(next.hasPrefix("k"))
                let query = try database.run([
                    "query", "items", "--where", filter, "--sort", "-due,id", "--limit", "3", "--format", "json",
                ])
                let expected = try JSONSerialization.jsonObject(with: Data(query.output.utf8)) as? NSArray
                #expect((json["rows"] as? NSArray) == expected)
                let facets = try #require(json["facets"] as? [String: Any])
                let listFacet = try #require(facets["list_id"] as? [String: Any])
                #expect(listFacet["more"] as? Bool == false)
                #expect((listFacet["values"] as? [[String: Any]])?.count == 5)
                let labels = try #require((json["labels"] as? [String: [String: String]])?["list_id"])
                #expect(!labels.isEmpty)
                #expect(labels.values.allSatisfy { ["Groceries", "Work", "Home", "Errands", "Reading"].contains($0) })

                // The next page starts where the first ended.
                let second = try await server.request("/items.json?" + view + "&after=" + next).json()
                let expectedNext = try database.run([
                    "query", "items", "--where", filter, "--sort", "-due,id", "--limit", "3", "--offset", "3",
                    "--format",
                    "json",
                ])
                #expect(
                    (second["rows"] as? NSArray)
                        == (try JSONSerialization.jsonObject(with: Data(expectedNext.output.utf8)) as? NSArray))
                #expect((second["next"] as? String)?.hasPrefix("k") == true)
                #expect(second["next"] as? String != next)
            }
        }

        @Test("TABLE.ndjson and TABLE.csv are what sqlq query writes for the same view")
        func ndjsonAndCSV() async throws {
            let database = try Self.notesDatabase()
            try await withServer(["--db", database.path]) { server in
                for format in ["ndjson", "csv"] {
                    let answer = try await server.request("/notes.\(format)?sort=-id&size=3&columns=id,body")
                    #expect(answer.status == 200)
                    let query = try database.run([
                        "query", "notes", "--sort", "-id", "--limit", "3", "--columns", "id,body", "--format", format,
                    ])
                    #expect(answer.body == query.output, "\(format)")
                }
            }
        }

        // MARK: Bad input

        @Test(
            "Every bad input is a 400 (an unknown table 404) with a message: HTML for pages, JSON for .json, never a 500"
        )
        func badInput() async throws {
            let database = try Self.notesDatabase()
            try await withServer(["--db", database.path]) { server in
                let cases: [(path: String, message: String)] = [
                    ("/nope", "no such table"),
                    ("/notes?where=\(encoded("nope = 1"))", "nope"),
                    ("/notes?where=\(encoded("stars >="))", "  stars >=\n          ^"),
                    ("/notes?sort=nope", "nope"),
                    ("/notes?columns=id,nope", "nope"),
                    ("/notes?facet=nope", "nope"),
                    ("/notes?after=xyz", "after= is not a page token of this server"),
                    ("/notes?after=o-1", "after= is not a page token"),
                    ("/notes?size=0", "size= takes a number of rows from 1 to 1000"),
                    ("/notes?size=5000", "size= takes a number of rows from 1 to 1000"),
                    ("/notes?size=1&size=2", "size= is given more than once"),
                    ("/notes?colour=red", "unknown parameter \"colour\""),
                    ("/notes?where=%FF", "not UTF-8"),
                    ("/notes?search=milk", "has no full-text index"),
                    ("/notes?columns=id,id", "selected twice"),
                    ("/notes/1/2", "no page has the path"),
                    ("/notes/abc", "is not a rowid"),
                    ("/starred/1", "is a view"),
                    ("/notes/1.csv", "a row is served as HTML, .json or .sse"),
                    ("/?where=x", "the database page takes no parameters"),
                    ("/-/nothing", "no page has the path"),
                ]
                for (path, message) in cases {
                    let page = try await server.request(path)
                    // An unknown table is not there: 404, with the same message.
                    let status = path == "/nope" ? 404 : 400
                    #expect(page.status == status, "\(path): \(page.status)")
                    #expect(
                        page.headers["content-type"]
                            == (path.hasSuffix(".csv") ? "text/plain; charset=utf-8" : "text/html; charset=utf-8"),
                        "\(path)")
                    #expect(page.body.contains(HTMLEscaper.escape(message)), "\(path): \(page.body)")
                    let jsonPath =
                        path.contains("?") ? path.replacing("?", with: ".json?", maxReplacements: 1) : path + ".json"
                    guard !path.hasPrefix("/notes/"), !path.hasPrefix("/starred/"), !path.hasPrefix("/-/"),
                        !path.hasPrefix("/?")
                    else { continue }
                    let json = try await server.request(jsonPath)
                    #expect(json.status == status, "\(jsonPath)")
                    #expect(
                        (try json.json()["error"] as? String)?.contains(message) == true, "\(jsonPath): \(json.body)")
                }
                // The filter's error is shown under the form, with the caret as sqlq prints it.
                let page = try await server.request("/notes?where=\(encoded("stars >="))")
                let query = try database.run(["query", "notes", "--where", "stars >="])
                let printed = query.errors.replacing("Error: ", with: "").trimmingCharacters(in: .newlines)
                #expect(page.body.contains("<pre class=\"error\" id=\"error\">\(HTMLEscaper.escape(printed))</pre>"))
            }
        }

        @Test("A query string is decoded as a browser's form encodes it; a bad escape is refused")
        func queryString() throws {
            let pairs = try QueryString.decode("where=a+%3D+%27x%27&facet=&where=%C3%A9")
            #expect(pairs.map(\.name) == ["where", "facet", "where"])
            #expect(pairs.map(\.value) == ["a = 'x'", "", "é"])
            #expect(throws: ServeError.self) { try QueryString.decode("where=%ZZ") }
            #expect(throws: ServeError.self) { try QueryString.decode("where=%4") }
            #expect(throws: ServeError.self) { try QueryString.decode("where=%FF") }
            #expect(QueryString.encode("a b/é'\"") == "a%20b%2F%C3%A9%27%22")
        }

        @Test("A query that runs longer than --time-limit is stopped, with a 400 that says so")
        func timeLimit() async throws {
            let database = try TestDatabase.with(
                """
                CREATE TABLE numbers(n INTEGER);
                WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 300000)
                INSERT INTO numbers SELECT n FROM c;
                """)
            try await withServer(["--db", database.path, "--time-limit", "0.001"]) { server in
                let answer = try await server.request("/numbers.json?where=\(encoded("n like '%99%9'"))")
                #expect(answer.status == 400)
                #expect(
                    (try answer.json()["error"] as? String)?.contains("took longer than the time limit (0.001 s)")
                        == true)
                // The connection is usable again afterwards.
                #expect(try await server.request("/-/sqlq.css").status == 200)
            }
        }

        // MARK: Safety

        @Test("Nothing a client sends changes the database: the connection is read-only and the file unchanged")
        func readOnly() async throws {
            let database = try Self.notesDatabase()
            let before = try Data(contentsOf: URL(fileURLWithPath: database.path))
            try await withServer(["--db", database.path]) { server in
                for method in ["POST", "PUT", "DELETE", "PATCH"] {
                    let answer = try await server.request("/notes", method: .init(rawValue: method))
                    #expect(!(200..<300).contains(answer.status), "\(method)")
                }
                for path in [
                    "/notes?where=\(encoded("id = 1; DELETE FROM notes"))",
                    "/notes?where=\(encoded("id = 1) OR (1 = 1"))",
                    "/notes?sort=\(encoded("id; DROP TABLE notes"))",
                    "/notes?columns=\(encoded("id, (DELETE FROM notes)"))",
                    "/notes%3B%20DROP%20TABLE%20notes",
                ] {
                    let answer = try await server.request(path)
                    // The last is a table's name that no table has.
                    #expect(answer.status == (path.hasPrefix("/notes%3B") ? 404 : 400), "\(path)")
                }
                let page = try await server.request("/")
                #expect(
                    page.body.contains("the file is opened read-only, and PRAGMA query_only is on (as SQLite reports)"))
            }
            #expect(try Data(contentsOf: URL(fileURLWithPath: database.path)) == before)
            #expect(try database.count("SELECT count(*) FROM notes") == 4)
        }

        @Test(
            "--token refuses what a cookie cannot carry, exiting 2 before it serves",
            arguments: ["", "a b", "a;b", "a\"b", "a,b", "a\\b", "é"])
        func tokenThatNoCookieCarries(token: String) throws {
            let result = try Executable.run(["serve", "--port", "0", "--token", token])
            #expect(result.status == 2)
            #expect(result.errors.contains("--token must be printable ASCII"), "\(result.errors)")
        }

        // MARK: Live

        @Test(
            "TABLE.sse sends the view's JSON, then a new event when the sqlite3 shell inserts a row",
            .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3")))
        func liveEvents() async throws {
            let database = try Self.notesDatabase()
            try await withServer(["--db", database.path]) { server in
                let view = "/notes.sse?where=\(encoded("stars >= 0"))&facet=folder_id"
                let stream = try await server.events(view)
                let folder = try await server.events("/folders/1.sse")
                let tables = try await server.events("/-/database.sse")
                #expect(stream.status == 200)
                #expect(stream.headers["content-type"] == "text/event-stream")
                let first = try await stream.next()
                // The same bytes as the JSON form of the view.
                let json = try await server.request("/notes.json?where=\(encoded("stars >= 0"))&facet=folder_id")
                #expect(first.data + "\n" == json.body)
                let firstID = try #require(first.id)

                try SQLiteShell.run(database.path, "INSERT INTO notes VALUES (5, 1, 'written by the shell', 2)")
                let second = try await stream.nextJSON()
                #expect(second["count"] as? Int == 5)
                #expect(
                    (second["rows"] as? [[String: Any]])?.contains { $0["body"] as? String == "written by the shell" }
                        == true)
                let facets = second["facets"] as? [String: [String: Any]]
                let inbox = (facets?["folder_id"]?["values"] as? [[String: Any]])?.first { $0["value"] as? Int == 1 }
                #expect(inbox?["count"] as? Int == 3)
                stream.close()
                // The row page counts the rows that refer to it, and the database page each table's rows.
                let referrers = { (json: [String: Any]) in
                    (json["referrers"] as? [[String: Any]])?.first?["count"] as? Int
                }
                #expect(referrers(try await folder.nextJSON()) == 2)
                #expect(referrers(try await folder.nextJSON()) == 3)
                folder.close()
                let notesCount = { (json: [String: Any]) in
                    (json["tables"] as? [[String: Any]])?.first { $0["name"] as? String == "notes" }?["count"] as? Int
                }
                #expect(notesCount(try await tables.nextJSON()) == 4)
                #expect(notesCount(try await tables.nextJSON()) == 5)
                tables.close()

                // A client that reconnects with an older event's id gets the current value at once.
                let reconnected = try await server.events(view, headers: [("Last-Event-ID", firstID)])
                #expect(try await reconnected.nextJSON()["count"] as? Int == 5)
                reconnected.close()

                // `Accept: text/event-stream` on the page's own URL streams too.
                let accepted = try await server.events("/notes", headers: [("Accept", "text/event-stream")])
                #expect(accepted.headers["content-type"] == "text/event-stream")
                #expect(try await accepted.nextJSON()["count"] as? Int == 5)
                accepted.close()
            }
        }

        @Test("Beyond --max-clients live streams, a stream is refused with 503")
        func clientCap() async throws {
            let database = try Self.notesDatabase()
            try await withServer(["--db", database.path, "--max-clients", "1"]) { server in
                let stream = try await server.events("/notes.sse")
                _ = try await stream.next()
                let refused = try await server.request("/notes.sse")
                #expect(refused.status == 503)
                #expect(refused.headers["retry-after"] == "5")
                #expect(refused.body.contains("at most 1 clients"))
                // Pages are not streams: they are still served.
                #expect(try await server.request("/notes").status == 200)
                stream.close()
            }
        }
    }
#endif
