#if HTTP
    import AsyncHTTPClient
    import Foundation
    import Testing

    @testable import sqlq

    /// What `sqlq serve` answers for values that other formats get wrong easily: reals, text that
    /// is not UTF-8, rowids that a column hides, broken views and facet values of another type.
    @Suite("sqlq serve answers", .serialized, .onProcessThreads)
    struct ServeAnswerTests {
        @Test("A column named rowid does not hide the rowid: the row is found by another name, or refused")
        func shadowedRowID() async throws {
            let database = try TestDatabase.with(
                """
                CREATE TABLE rid(rowid TEXT, v);
                INSERT INTO rid(rowid, v) VALUES ('first', 1), ('second', 2);
                CREATE TABLE keyed(id INTEGER PRIMARY KEY, rowid TEXT);
                INSERT INTO keyed VALUES (7, 'seven');
                CREATE TABLE hidden(rowid TEXT, oid TEXT, _rowid_ TEXT);
                INSERT INTO hidden VALUES ('1', '1', '1');
                """)
            try await withServer(["--db", database.path]) { server in
                let row = try await server.request("/rid/2.json").json()
                let values = try #require(row["row"] as? [String: Any])
                #expect(values["rowid"] as? String == "second")
                #expect(values["v"] as? Int == 2)
                let keyed = try await server.request("/keyed/7.json").json()
                #expect((keyed["row"] as? [String: Any])?["rowid"] as? String == "seven")
                // The table page links each row by its rowid.
                let page = try await server.request("/keyed")
                #expect(page.body.contains("<a href=\"/keyed/7\">7</a>"))
                let refused = try await server.request("/hidden/1.json")
                #expect(refused.status == 400)
                let message = try refused.json()["error"] as? String ?? ""
                #expect(message.contains("rowid, _rowid_ and oid"), "\(message)")
            }
        }

        @Test("Every JSON answer writes a real as query --format json does: 3.0 stays a real")
        func realsStayReals() async throws {
            let database = try TestDatabase.with(
                """
                CREATE TABLE r(id INTEGER PRIMARY KEY, x REAL);
                INSERT INTO r(x) VALUES (3.0), (-0.0), (9007199254740992.0), (1e300), (0.1);
                """)
            let query = try database.run(["query", "r", "--columns", "x", "--format", "ndjson"])
            let expected = query.output.split(separator: "\n").map(String.init)
            #expect(expected.first == "{\"x\":3.0}")
            try await withServer(["--db", database.path, "--allow-sql"]) { server in
                let page = try await server.request("/r.json?columns=x").body
                for line in expected { #expect(page.contains(line), "\(line) in \(page)") }
                let row = try await server.request("/r/1.json").body
                #expect(row.contains("\"x\":3.0"), "\(row)")
                let sql = try await server.request(
                    "/-/sql.json?sql=\(encoded("SELECT 3.0 AS x, 9007199254740992.0 AS y"))")
                #expect(sql.body.contains("{\"x\":3.0,\"y\":9007199254740992.0}"), "\(sql.body)")
                let facets = try await server.request("/r.json?facet=x").body
                #expect(facets.contains("\"value\":3.0"), "\(facets)")
                let events = try await server.events("/r.sse?columns=x")
                let event = try await events.next()
                #expect(event.data == page.trimmingCharacters(in: .newlines))
                events.close()
            }
        }

        @Test("A broken view does not hide the row counts of the tables after it, and says why it has none")
        func brokenView() async throws {
            let database = try TestDatabase.with(
                """
                CREATE TABLE gone(a);
                CREATE VIEW broken AS SELECT * FROM gone;
                DROP TABLE gone;
                CREATE TABLE later(a);
                INSERT INTO later VALUES (1), (2), (3);
                CREATE TABLE zlast(a);
                INSERT INTO zlast VALUES (1);
                """)
            try await withServer(["--db", database.path]) { server in
                let json = try await server.request("/-/database.json").json()
                let tables = try #require(json["tables"] as? [[String: Any]])
                let byName = Dictionary(uniqueKeysWithValues: tables.map { ($0["name"] as? String ?? "", $0) })
                #expect(byName["later"]?["count"] as? Int == 3)
                #expect(byName["zlast"]?["count"] as? Int == 1)
                #expect(byName["broken"]?["count"] is NSNull)
                let error = byName["broken"]?["error"] as? String ?? ""
                #expect(error.contains("gone"), "\(error)")
                let page = try await server.request("/")
                #expect(
                    page.body.contains("<a href=\"/later\">later</a></td><td>table</td><td class=\"number\">3</td>"))
                #expect(page.body.contains("no such table: main.gone") || page.body.contains("no such table: gone"))
            }
        }

        @Test("Every facet link finds exactly the rows its facet value counted, whatever the value's type")
        func facetLinks() async throws {
            var values = ["NULL", "NULL", "x'00ff'", "x'78'"]
            for index in 0..<40 {
                switch index % 8 {
                case 0: values.append(String(index % 5))
                case 1: values.append("\(index % 3).5")
                case 2: values.append("'\(index % 4)'")
                case 3: values.append("'word \(index % 3)'")
                case 4: values.append("'x'")
                case 5: values.append("'3.5e'")
                case 6: values.append("1e300")
                default: values.append("'a*b?[c]'")
                }
            }
            // A blob with the bytes of a text value goes in the untyped column only: in an INTEGER
            // column a link finds text by a pattern, which such a blob would match too.
            let inserts = values.map { value in
                "INSERT INTO mixed(n, m) VALUES (\(value == "x'78'" ? "x'00ff'" : value), \(value));"
            }.joined(separator: "\n")
            let database = try TestDatabase.with(
                "CREATE TABLE mixed(id INTEGER PRIMARY KEY, n INTEGER, m);\n" + inserts)
            try await withServer(["--db", database.path]) { server in
                for column in ["n", "m"] {
                    let page = try await server.request("/mixed?facet=\(column)&size=1000")
                    #expect(page.status == 200)
                    let section = try #require(
                        page.body.firstRange(of: "<section id=\"facets\"").map {
                            String(page.body[$0.lowerBound...])
                        })
                    var followed = 0
                    for item in section.split(separator: "<li>").dropFirst() {
                        guard let hrefStart = item.firstRange(of: "href=\""),
                            let hrefEnd = item[hrefStart.upperBound...].firstIndex(of: "\""),
                            let countStart = item.firstRange(of: "<span class=\"count\">"),
                            let countEnd = item[countStart.upperBound...].firstIndex(of: "<")
                        else { continue }
                        let link = String(item[hrefStart.upperBound..<hrefEnd]).replacing("&amp;", with: "&")
                        let count = Int(item[countStart.upperBound..<countEnd]) ?? -1
                        let json = link.replacing("/mixed?", with: "/mixed.json?")
                        let answer = try await server.request(json)
                        #expect(answer.status == 200, "\(link): \(answer.body)")
                        guard answer.status == 200 else { continue }
                        #expect(try answer.json()["count"] as? Int == count, "\(link)")
                        followed += 1
                    }
                    #expect(followed >= 8, "\(column): \(followed) links followed")
                }
            }
        }

        @Test("Text that is not UTF-8: .csv writes its bytes, the JSON formats refuse it, HTML shows the bytes")
        func invalidText() async throws {
            let database = try TestDatabase.with(
                """
                CREATE TABLE u(id INTEGER PRIMARY KEY, t);
                INSERT INTO u(t) VALUES ('ok'), (CAST(x'ff41' AS TEXT));
                """)
            let csv = try database.run(["query", "u", "--format", "csv"])
            #expect(csv.status == 0)
            let json = try database.run(["query", "u", "--format", "json"])
            #expect(json.status == 1)
            try await withServer(["--db", database.path]) { server in
                #expect(try await server.bytes("/u.csv") == csv.outputBytes)
                for format in ["json", "ndjson"] {
                    let answer = try await server.request("/u.\(format)")
                    #expect(answer.status == 422, "\(format): \(answer.status)")
                    let message = try answer.json()["error"] as? String ?? ""
                    #expect(message.contains("not UTF-8"), "\(message)")
                }
                let events = try await server.events("/u.sse")
                let event = try await events.next()
                #expect(event.type == "error")
                #expect(event.data.contains("not UTF-8"), "\(event.data)")
                events.close()
                let page = try await server.request("/u")
                #expect(page.status == 200)
                #expect(page.body.contains("<span class=\"byte\">\\xff</span>A"), "\(page.body)")
                #expect(!page.body.contains("\u{FFFD}"))
            }
        }
    }

    extension RunningServer {
        /// The bytes of the answer to a GET of `path`, unchanged.
        fileprivate func bytes(_ path: String) async throws -> [UInt8] {
            let response = try await client.execute(HTTPClientRequest(url: base + path), timeout: .seconds(60))
            return Array(buffer: try await response.body.collect(upTo: 1 << 24))
        }
    }
#endif
