#if HTTP
    import ChildProcesses
    import Foundation
    import Testing

    @testable import sqlq

    /// The column picker, the foreign-key labels of facets, the one-time login URL of `--token`
    /// and `--allow-sql`'s SQL page, against a real `sqlq serve`.
    @Suite("sqlq serve: the view's tools", .serialized, .onProcessThreads)
    struct ServeViewTests {
        // MARK: The column picker

        @Test("The column picker is a plain GET form: a checkbox per column, checked when shown, the view kept")
        func columnPicker() async throws {
            let database = try ServeTests.notesDatabase()
            try SQLiteShell.run(
                database.path,
                #"CREATE TABLE odd(id INTEGER PRIMARY KEY, "a.b" TEXT, "c,d" TEXT, "-e" TEXT);"#
                    + #" INSERT INTO odd VALUES (1, 'dot', 'comma', 'dash');"#)
            try await withServer(["--db", database.path]) { server in
                let view = "where=\(encoded("stars >= 0"))&sort=-id&facet=folder_id&size=3"
                let page = try await server.request("/notes?" + view)
                let picker = try Self.form("columns", in: page.body)
                #expect(picker.hasPrefix("<form method=\"get\" action=\"/notes\" id=\"columns\" class=\"columns\">"))
                for hidden in [
                    ("where", "stars &gt;= 0"), ("sort", "-id"), ("facet", "folder_id"), ("size", "3"),
                ] {
                    #expect(picker.contains("<input type=\"hidden\" name=\"\(hidden.0)\" value=\"\(hidden.1)\">"))
                }
                // Every column is shown, so every box is checked, in the table's order.
                #expect(
                    Self.boxes(picker)
                        == [
                            ("id", "id", true), ("folder_id", "folder_id", true), ("body", "body", true),
                            ("stars", "stars", true),
                        ].map(Box.init))

                // Unticking body and submitting, as a browser does: the view stays, body goes.
                let query = Self.submission(of: picker, unticking: ["body"])
                #expect(
                    query
                        == "where=stars%20%3E%3D%200&sort=-id&facet=folder_id&size=3&columns=id&columns=folder_id&columns=stars"
                )
                let narrowed = try await server.request("/notes?" + query)
                #expect(narrowed.status == 200)
                #expect(narrowed.body.contains("<p id=\"count\" data-live>4 rows match</p>"))
                #expect(narrowed.body.contains("<div class=\"facet\" data-key=\"folder_id\">"))
                #expect(!narrowed.body.contains(">body</a></th>"))
                #expect(narrowed.body.contains(">stars</a></th>"))
                // The shown columns first, in their order, checked; the others after, unchecked.
                let again = try await server.request("/notes?" + view + "&columns=stars,id")
                #expect(
                    Self.boxes(try Self.form("columns", in: again.body))
                        == [
                            ("stars", "stars", true), ("id", "id", true), ("folder_id", "folder_id", false),
                            ("body", "body", false),
                        ].map(Box.init))
                // The same view as one columns= with commas.
                let repeated = try await server.request("/notes.json?" + query)
                let joined = try await server.request(
                    "/notes.json?" + view + "&columns=" + encoded("id,folder_id,stars"))
                #expect(repeated.body == joined.body)

                // A name holding a dot, a comma or a leading dash is quoted as the option reads it.
                let odd = try await server.request("/odd")
                let oddBoxes = Self.boxes(try Self.form("columns", in: odd.body))
                #expect(
                    oddBoxes
                        == [
                            ("id", "id", true), ("\"a.b\"", "a.b", true), ("\"c,d\"", "c,d", true),
                            ("\"-e\"", "-e", true),
                        ].map(Box.init))
                let oddQuery = Self.submission(of: try Self.form("columns", in: odd.body), unticking: ["id"])
                let oddJSON = try await server.request("/odd.json?" + oddQuery).json()
                #expect(oddJSON["columns"] as? [String] == ["a.b", "c,d", "-e"], "\(oddJSON)")
            }
        }

        struct Box: Equatable, CustomStringConvertible {
            var value: String
            var label: String
            var checked: Bool
            init(_ box: (String, String, Bool)) { (value, label, checked) = box }
            var description: String { "\(value)|\(label)|\(checked)" }
        }

        /// The form with `id` in `html`, from its start tag to its end tag.
        static func form(_ id: String, in html: String) throws -> String {
            let start = try #require(html.range(of: "<form method=\"get\" action=\"/"), "no form")
            let tail = html[start.lowerBound...]
            let own = try #require(tail.range(of: " id=\"\(id)\""), "no form \(id)")
            let formStart = try #require(html[..<own.lowerBound].range(of: "<form", options: .backwards))
            let end = try #require(html[formStart.lowerBound...].range(of: "</form>"))
            return String(html[formStart.lowerBound..<end.upperBound])
        }

        /// The checkboxes of a picker: value, label and whether checked, HTML unescaped.
        static func boxes(_ form: String) -> [Box] {
            form.matches(
                of: #/<label><input type="checkbox" name="columns" value="([^"]*)"( checked)?> ([^<]*)</label>/#
            )
            .map { Box((unescape(String($0.1)), unescape(String($0.3)), $0.2 != nil)) }
        }

        /// The query string a browser makes of `form`: its hidden inputs and checked boxes in
        /// order, after unticking the boxes labelled `unticking`.
        static func submission(of form: String, unticking: Set<String>) -> String {
            var pairs: [String] = []
            for input in form.matches(
                of: #/<input type="(hidden|checkbox)" name="([^"]*)" value="([^"]*)"( checked)?>( ([^<]*)</label>)?/#)
            {
                if input.1 == "checkbox" && (input.4 == nil || unticking.contains(unescape(String(input.6 ?? "")))) {
                    continue
                }
                pairs.append(
                    QueryString.encode(unescape(String(input.2))) + "=" + QueryString.encode(unescape(String(input.3))))
            }
            return pairs.joined(separator: "&")
        }

        static func unescape(_ text: String) -> String {
            text.replacing("&lt;", with: "<").replacing("&gt;", with: ">").replacing("&quot;", with: "\"")
                .replacing("&#39;", with: "'").replacing("&amp;", with: "&")
        }

        @Test("Every column header sorts by its column, a name holding a dot, comma or dash included")
        func headerSortLinks() async throws {
            let database = try ServeTests.notesDatabase()
            try SQLiteShell.run(
                database.path,
                #"CREATE TABLE odd(id INTEGER PRIMARY KEY, "a.b" TEXT, "c,d" TEXT, "-e" TEXT);"#
                    + #" INSERT INTO odd VALUES (1, 'z', 'y', 'x'), (2, 'y', 'z', 'z'), (3, 'x', 'x', 'y');"#)
            try await withServer(["--db", database.path]) { server in
                let page = try await server.request("/odd")
                let links = page.body.matches(of: /<th><a href="([^"]*)">([^<]*)<\/a><\/th>/).map {
                    (href: Self.unescape(String($0.output.1)), column: Self.unescape(String($0.output.2)))
                }
                #expect(links.map(\.column) == ["id", "a.b", "c,d", "-e"])
                for (href, column) in links {
                    let sorted = try await server.request(href)
                    #expect(sorted.status == 200, "\(column): \(sorted.body)")
                    #expect(sorted.body.contains(">\(column)</a> ▲</th>"), "\(column)")
                    // Each column's values come out ascending: x, y, z (or 1, 2, 3).
                    let json = try await server.request(href.replacing("/odd?", with: "/odd.json?")).json()
                    let rows = try #require(json["rows"] as? [[String: Any]])
                    let values = rows.map { "\($0[column] ?? "")" }
                    #expect(values == values.sorted(), "\(column): \(values)")
                }
            }
        }

        @Test("INTEGER PRIMARY KEY DESC is no rowid: each row links to its own page, and a child to its parent's label")
        func primaryKeyThatIsNotTheRowID() async throws {
            let database = try ServeTests.notesDatabase()
            // Declared in a column, `INTEGER PRIMARY KEY DESC` makes an ordinary column, not an
            // alias of the rowid: here each row's id differs from its rowid.
            try SQLiteShell.run(
                database.path,
                "CREATE TABLE desk(id INTEGER PRIMARY KEY DESC, name TEXT);"
                    + " INSERT INTO desk VALUES (2, 'two'), (1, 'one');"
                    + " CREATE TABLE drawer(id INTEGER PRIMARY KEY, desk_id INTEGER REFERENCES desk(id));"
                    + " INSERT INTO drawer VALUES (1, 2);"
                    // A real alias, on a table whose index a scan would read instead of the table.
                    + " CREATE TABLE shelf(id INTEGER PRIMARY KEY, name TEXT, level INTEGER, note TEXT);"
                    + " CREATE INDEX shelf_level ON shelf(level);"
                    + " INSERT INTO shelf VALUES (7, 'top', 2, 'a long note'), (3, 'low', 1, 'another long note');")
            try await withServer(["--db", database.path]) { server in
                let desks = try await server.request("/desk.json?sort=id").json()
                #expect((desks["rows"] as? [[String: Any]])?.map { $0["name"] as? String } == ["one", "two"])
                // The rows in the page's order (one, two), each followed to the page it links to.
                let page = try await server.request("/desk?sort=id")
                var reached: [String] = []
                for match in page.body.matches(of: /<tr data-key="[^"]*"><td><a href="([^"]*)">/) {
                    let row = try await server.request(String(match.output.1) + ".json").json()
                    reached.append("\((row["row"] as? [String: Any])?["name"] ?? "no row")")
                }
                // Rows of a table with no rowid column are not linked; a link is never to another row.
                #expect(reached.isEmpty || reached == ["one", "two"], "\(reached)")
                let shelves = try await server.request("/shelf?sort=id")
                var shelved: [String] = []
                for match in shelves.body.matches(of: /<tr data-key="[^"]*"><td><a href="([^"]*)">/) {
                    let row = try await server.request(String(match.output.1) + ".json").json()
                    shelved.append("\((row["row"] as? [String: Any])?["name"] ?? "no row")")
                }
                #expect(shelved == ["low", "top"])
                // A row's page is found by its rowid.
                let first = try await server.request("/desk/1.json").json()
                #expect((first["row"] as? [String: Any])?["name"] as? String == "two", "\(first)")
                // The drawer's desk_id 2 is the desk named two, whatever its rowid.
                let drawers = try await server.request("/drawer.json").json()
                let labels = drawers["labels"] as? [String: [String: String]]
                #expect(labels?["desk_id"]?["2"] == "two", "\(drawers)")
            }
        }

        // MARK: count=false

        @Test("count=false skips the count: null in the JSON, said on the page, kept in every link of the view")
        func countFalse() async throws {
            let database = try ServeTests.notesDatabase()
            try await withServer(["--db", database.path]) { server in
                #expect(try await server.request("/notes.json?sort=id&size=2").json()["count"] as? Int == 4)
                let answer = try await server.request("/notes.json?sort=id&size=2&count=false")
                #expect(answer.status == 200)
                let json = try answer.json()
                #expect(json["count"] is NSNull, "\(json)")
                #expect((json["rows"] as? [Any])?.count == 2)
                let next = try #require(json["next"] as? String)
                let second = try await server.request("/notes.json?sort=id&size=2&count=false&after=" + encoded(next))
                #expect(try second.json()["count"] is NSNull)
                #expect(try await server.request("/notes.json?count=true").json()["count"] as? Int == 4)

                let page = try await server.request("/notes?sort=id&facet=folder_id&size=2&count=false")
                #expect(page.status == 200)
                #expect(
                    page.body.contains(
                        "<p id=\"count\" data-live>The matching rows were not counted (count=false).</p>"))
                #expect(!page.body.contains("rows match"))
                // Sort headers, facet values, the next page, the formats and the live source keep it.
                let links = page.body.matches(of: #/(?:href|data-live-source)="(/notes[^/"]*)"/#).map { String($0.1) }
                #expect(links.count >= 10, "\(links)")
                for link in links { #expect(link.contains("count=false"), "\(link)") }
                #expect(page.body.contains("data-live-source=\"/notes.sse?"))
                #expect(page.body.contains("rel=\"next\""))
                // So do the filter form and the column picker.
                #expect(
                    try Self.form("columns", in: page.body).contains(
                        "<input type=\"hidden\" name=\"count\" value=\"false\">"))
                #expect(page.body.ranges(of: "<input type=\"hidden\" name=\"count\" value=\"false\">").count == 2)
                let counted = try await server.request("/notes?sort=id")
                #expect(!counted.body.contains("count=false"))
                #expect(!counted.body.contains("name=\"count\""))
            }
        }

        @Test(
            "count= takes true or false, once",
            arguments: [
                (
                    "count=no",
                    "count= takes true (count the matching rows, the default) or false (skip the count); \"no\" is neither"
                ),
                ("count=false&count=false", "count= is given more than once; give it once"),
            ])
        func countRefusals(query: String, message: String) async throws {
            let database = try ServeTests.notesDatabase()
            try await withServer(["--db", database.path]) { server in
                let answer = try await server.request("/notes.json?" + query)
                #expect(answer.status == 400)
                #expect(try answer.json()["error"] as? String == message)
                let page = try await server.request("/notes?" + query)
                #expect(page.status == 400)
            }
        }

        // MARK: Facet labels

        @Test("A facet on a foreign key shows the parent rows' labels, in the page, the JSON and each event")
        func facetLabels() async throws {
            let database = try ServeTests.notesDatabase()
            try await withServer(["--db", database.path]) { server in
                // folder_id is not among the columns shown: the facet's values get labels all the same.
                let view = "columns=id,body&facet=folder_id"
                let page = try await server.request("/notes?" + view)
                #expect(
                    page.body.contains(
                        "<li><a href=\"/notes?where=%22folder_id%22%20%3D%201&amp;columns=id%2Cbody&amp;facet=folder_id\" class=\"label\">Inbox</a> <span class=\"key\">1</span> <span class=\"count\">2</span></li>"
                    ), "\(page.body)")
                #expect(
                    page.body.contains(
                        "class=\"label\">Archive &lt;old&gt;</a> <span class=\"key\">2</span> <span class=\"count\">1</span></li>"
                    ))
                #expect(page.body.contains(">null</a> <span class=\"count\">1</span></li>"))

                let json = try await server.request("/notes.json?" + view).json()
                #expect(
                    (json["labels"] as? [String: [String: String]])?["folder_id"] == [
                        "1": "Inbox", "2": "Archive <old>",
                    ])

                // Each event carries the labels of the values it counts, a new parent's too.
                let stream = try await server.events("/notes.sse?" + view)
                let first = try await stream.nextJSON()
                #expect((first["labels"] as? [String: [String: String]])?["folder_id"]?["1"] == "Inbox")
                try SQLiteShell.run(
                    database.path,
                    "BEGIN; INSERT INTO folders VALUES (3, 'Later'); INSERT INTO notes VALUES (5, 3, 'new', 0); COMMIT;"
                )
                let labels = (try await stream.nextJSON()["labels"] as? [String: [String: String]])?["folder_id"]
                #expect(labels == ["1": "Inbox", "2": "Archive <old>", "3": "Later"])
                stream.close()
            }
        }

        // MARK: The one-time login URL

        @Test("--token: 401 without it, 200 with the bearer token, and the printed one-time URL logs in once")
        func token() async throws {
            let database = try ServeTests.notesDatabase()
            try await withServer(["--db", database.path, "--token", "s3cret"]) { server in
                try await server.command.output.waitFor("\n", occurrences: 2)
                let printed = server.command.output.text
                // The token itself is never printed: the URL holds a one-time code.
                #expect(!printed.contains("s3cret"), "\(printed)")
                let line = try #require(printed.split(separator: "\n").first { $0.contains("/-/login?code=") })
                let url = try #require(line.split(separator: " ").last)
                #expect(url.hasPrefix(server.base + "/-/login?code="))
                let login = String(url.dropFirst(server.base.count))
                #expect(login.count >= "/-/login?code=".count + 32)

                for path in ["/", "/notes", "/notes.json", "/notes.sse", "/-/sqlq.js"] {
                    #expect(try await server.request(path).status == 401, "\(path)")
                }
                #expect(try await server.request("/notes", headers: [("Authorization", "Bearer wrong")]).status == 401)
                #expect(try await server.request("/notes", headers: [("Cookie", "sqlq_session=wrong")]).status == 401)
                // The token in a URL logs nobody in.
                #expect(try await server.request("/?token=s3cret").status == 401)
                #expect(try await server.request("/-/login?code=nope").status == 401)
                #expect(try await server.request("/notes", headers: [("Authorization", "Bearer s3cret")]).status == 200)

                let visit = try await server.request(login)
                #expect(visit.status == 303)
                #expect(visit.headers["location"] == "/")
                let cookie = try #require(visit.headers["set-cookie"])
                #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"))
                // The cookie holds a session secret, neither the token nor the code.
                let pair = String(cookie.prefix { $0 != ";" })
                #expect(pair.hasPrefix("sqlq_session="))
                #expect(!pair.contains("s3cret") && !login.contains(String(pair.dropFirst("sqlq_session=".count))))
                let page = try await server.request("/notes", headers: [("Cookie", "other=1; " + pair)])
                #expect(page.status == 200)
                #expect(page.body.contains("4 rows match"))

                // The URL works once: a second visit is refused, with a message, and sets no cookie.
                let replay = try await server.request(login)
                #expect(replay.status == 401)
                #expect(replay.body.contains("this one-time login URL was used already"), "\(replay.body)")
                #expect(replay.headers["set-cookie"] == nil)
                // The session stays, and the bearer token keeps working.
                #expect(try await server.request("/notes", headers: [("Cookie", pair)]).status == 200)
                #expect(try await server.request("/", headers: [("Authorization", "Bearer s3cret")]).status == 200)
            }
        }

        // MARK: --allow-sql

        @Test("Without --allow-sql, /-/sql is refused with a message that names the option")
        func sqlPageIsOffByDefault() async throws {
            let database = try ServeTests.notesDatabase()
            try await withServer(["--db", database.path]) { server in
                for path in ["/-/sql?sql=\(encoded("SELECT 1"))", "/-/sql.json?sql=\(encoded("SELECT 1"))", "/-/sql"] {
                    let answer = try await server.request(path)
                    #expect(answer.status == 403, "\(path)")
                    #expect(answer.body.contains("--allow-sql"), "\(path): \(answer.body)")
                }
            }
        }

        @Test("--allow-sql: /-/sql runs one SELECT, escaped, with a row maximum and the time limit")
        func sqlPage() async throws {
            let database = try ServeTests.notesDatabase()
            try await withServer(["--db", database.path, "--allow-sql", "--time-limit", "0.5"]) { server in
                let select = "SELECT id, body FROM notes WHERE stars > 1 ORDER BY id"
                let json = try await server.request("/-/sql.json?sql=" + encoded(select))
                #expect(json.status == 200)
                #expect(json.headers["content-type"] == "application/json")
                #expect(
                    json.body
                        == #"{"columns":["id","body"],"more":false,"rows":[{"body":"<script>alert(1)</script>","id":1}],"sql":"SELECT id, body FROM notes WHERE stars > 1 ORDER BY id"}"#
                        + "\n")

                // The page: a form with the SQL in its textarea, and the rows, every value escaped.
                let markup = "SELECT '</textarea><script>alert(1)</script>' AS \"<i>c\""
                let page = try await server.request("/-/sql?sql=" + encoded(markup))
                #expect(page.status == 200)
                #expect(page.body.contains("<form method=\"get\" action=\"/-/sql\" id=\"sql\">"))
                #expect(
                    page.body.contains(
                        "<textarea name=\"sql\" rows=\"6\" cols=\"80\">SELECT &#39;&lt;/textarea&gt;&lt;script&gt;alert(1)&lt;/script&gt;&#39; AS &quot;&lt;i&gt;c&quot;</textarea>"
                    ), "\(page.body)")
                #expect(page.body.contains("<th>&lt;i&gt;c</th>"))
                #expect(page.body.contains("<td>&lt;/textarea&gt;&lt;script&gt;alert(1)&lt;/script&gt;</td>"))
                #expect(!page.body.contains("<script>alert") && !page.body.contains("<i>"))
                let empty = try await server.request("/-/sql")
                #expect(empty.status == 200)
                #expect(empty.body.contains("<textarea name=\"sql\" rows=\"6\" cols=\"80\"></textarea>"))

                // At most 1000 rows, and `more` says there were more.
                let many = try await server.request(
                    "/-/sql.json?sql="
                        + encoded(
                            "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c LIMIT 5000) SELECT n FROM c"
                        ))
                let manyJSON = try many.json()
                #expect((manyJSON["rows"] as? [Any])?.count == 1000)
                #expect(manyJSON["more"] as? Bool == true)
                // The time limit stops a query that runs on.
                let endless = try await server.request(
                    "/-/sql.json?sql="
                        + encoded(
                            "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c) SELECT count(*) FROM c"))
                #expect(endless.status == 400)
                #expect((try endless.json()["error"] as? String)?.contains("took longer than the time limit") == true)

                for (path, message) in [
                    ("/-/sql.json", "give the SQL to run in sql="),
                    ("/-/sql.json?sql=\(encoded("SELECT nope FROM notes"))", "no such column: nope"),
                    ("/-/sql.json?sql=\(encoded("SELECT 1 AS a, 2 AS a"))", "the column \"a\" is named twice"),
                    ("/-/sql.json?sql=1&sql=2", "sql= is given more than once"),
                    ("/-/sql.json?sql=1&colour=red", "unknown parameter \"colour\""),
                ] {
                    let answer = try await server.request(path)
                    #expect(answer.status == 400, "\(path)")
                    #expect(
                        (try answer.json()["error"] as? String)?.contains(message) == true, "\(path): \(answer.body)")
                }
            }
        }

        @Test(
            "--allow-sql refuses every statement but one read: writes, ATTACH, pragmas, transactions, two statements",
            arguments: [
                "INSERT INTO notes VALUES (7, 1, 'x', 1)",
                "DELETE FROM notes",
                "WITH gone AS (SELECT 1) DELETE FROM notes",
                "CREATE TABLE t(x)",
                "ATTACH 'ATTACHED' AS other",
                "DETACH main",
                "PRAGMA query_only = OFF",
                "PRAGMA user_version = 7",
                "PRAGMA journal_mode = DELETE",
                "BEGIN IMMEDIATE",
                "VACUUM INTO 'ATTACHED'",
                "SELECT 1; DELETE FROM notes",
                "SELECT 1; SELECT 2",
                "/* a comment */ ANALYZE",
            ])
        func sqlRefusals(sql: String) async throws {
            let database = try ServeTests.notesDatabase()
            let attached = database.directory.file("attached.sqlite").path
            let sql = sql.replacing("ATTACHED", with: attached)
            let before = try Data(contentsOf: URL(fileURLWithPath: database.path))
            try await withServer(["--db", database.path, "--allow-sql"]) { server in
                let json = try await server.request("/-/sql.json?sql=" + encoded(sql))
                #expect(json.status == 400)
                let message = try #require(try json.json()["error"] as? String)
                #expect(
                    message.contains("/-/sql runs one read-only statement"), "\(sql): \(message)")
                let page = try await server.request("/-/sql?sql=" + encoded(sql))
                #expect(page.status == 400)
                #expect(page.body.contains("<pre class=\"error\" id=\"error\">"))
                #expect(page.body.contains(HTMLEscaper.escape(message)))
                // The page keeps the SQL in its form, to be corrected.
                #expect(page.body.contains(">\(HTMLEscaper.escape(sql))</textarea>"))
            }
            #expect(try Data(contentsOf: URL(fileURLWithPath: database.path)) == before)
            #expect(!FileManager.default.fileExists(atPath: attached))
        }
    }
#endif
