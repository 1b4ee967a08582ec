import ChildProcesses
import Foundation
import SQLite
import Testing

@Suite("sqlq --facet", .onProcessThreads)
struct FacetTests {
    /// Six rows; `--where "id <= 5"` keeps five: status open ×2, NULL ×2, closed ×1; n 1 ×3, 2 ×2.
    private static let schema = """
        CREATE TABLE t(id INTEGER PRIMARY KEY, status TEXT, n INT);
        INSERT INTO t VALUES (1, 'open', 1), (2, 'open', 2), (3, 'closed', 1), (4, NULL, 1), (5, NULL, 2),
          (6, 'wip', 1);
        """

    private static let facetArguments = [
        "query", "t", "--where", "id <= 5", "--columns", "id", "--sort", "id", "--limit", "2", "--facet", "status",
        "--facet", "n", "--facet-size", "2",
    ]

    @Test("Counts match the matching rows of the demo database, most common first, ties by value")
    func countsOnDemo() throws {
        let database = try TestDatabase.demo()
        let result = try database.run([
            "query", "items", "--where", "not done and priority >= 2", "--facet", "priority", "--facet", "list_id",
            "--facet-size", "3", "--format", "json",
        ])
        #expect(result.status == 0)
        #expect(result.errors.isEmpty)
        let object = try #require(JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        let rows = try #require(object["rows"] as? [[String: Any]])
        let facets = try #require(object["facets"] as? [String: [String: Any]])

        // Counted here, in Swift, from every row: not by the GROUP BY under test.
        let all = try database.read { db in try db.fetchAll("SELECT priority, list_id, done FROM items") }
        let matching = all.filter { (try? $0[2] as Int64) == 0 && ((try? $0[0] as Int64) ?? 0) >= 2 }
        #expect(rows.count == matching.count)
        #expect(matching.count > 100)
        for (index, name) in [(0, "priority"), (1, "list_id")] {
            var counts: [Int64: Int] = [:]
            for row in matching { counts[try row[index] as Int64, default: 0] += 1 }
            let expected = counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
            let facet = try #require(facets[name])
            let values = try #require(facet["values"] as? [[String: Any]])
            #expect(values.map { $0["value"] as? Int64 } == expected.prefix(3).map { $0.key })
            #expect(values.map { $0["count"] as? Int } == expected.prefix(3).map { $0.value })
            #expect(facet["more"] as? Bool == (counts.count > 3))
        }
    }

    @Test("Facets count every matching row, whatever --columns, --sort and --limit keep")
    func tableShape() throws {
        let database = try TestDatabase.with(Self.schema)
        let result = try database.run(Self.facetArguments)
        #expect(result.status == 0)
        #expect(
            result.output == """
                 id
                ----
                  1
                  2
                (2 rows)

                 status | count
                --------+-------
                 NULL   |     2
                 open   |     2
                (More values than these 2; --facet-size shows more.)

                 n | count
                ---+-------
                 1 |     3
                 2 |     2

                """)
    }

    @Test(
        "Each format has its shape",
        arguments: [
            (
                "json",
                """
                {"facets":{
                "status":{"values":[{"value":null,"count":2},{"value":"open","count":2}],"more":true},
                "n":{"values":[{"value":1,"count":3},{"value":2,"count":2}],"more":false}
                },
                "rows":[
                {"id":1},
                {"id":2}
                ]
                }

                """
            ),
            (
                "ndjson",
                """
                {"id":1}
                {"id":2}
                {"$facet":"status","values":[{"value":null,"count":2},{"value":"open","count":2}],"more":true}
                {"$facet":"n","values":[{"value":1,"count":3},{"value":2,"count":2}],"more":false}

                """
            ),
            ("csv", "facet,value,count\r\nstatus,,2\r\nstatus,open,2\r\nstatus,,\r\nn,1,3\r\nn,2,2\r\n"),
            ("tsv", "facet\tvalue\tcount\nstatus\t\\N\t2\nstatus\topen\t2\nstatus\t\\N\t\\N\nn\t1\t3\nn\t2\t2\n"),
            (
                "markdown",
                """
                |  id |
                |----:|
                |   1 |
                |   2 |

                | status | count |
                |--------|------:|
                | NULL   |     2 |
                | open   |     2 |

                _More values than these 2; --facet-size shows more._

                |   n | count |
                |----:|------:|
                |   1 |     3 |
                |   2 |     2 |

                """
            ),
        ])
    func formats(format: String, expected: String) throws {
        let database = try TestDatabase.with(Self.schema)
        let result = try database.run(Self.facetArguments + ["--format", format])
        #expect(result.status == 0)
        #expect(result.output == expected)
        if format == "json" {
            #expect(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) is [String: Any])
        }
    }

    @Test("Without --facet-size ten values show; no filter counts every row; a facet named twice shows once")
    func defaultSize() throws {
        let database = try TestDatabase.with(
            "CREATE TABLE t(v INTEGER); WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 11) "
                + "INSERT INTO t SELECT i FROM c; INSERT INTO t VALUES (11);")
        let result = try database.run(["query", "t", "--facet", "v", "--facet", "V", "--format", "tsv"])
        #expect(result.status == 0)
        #expect(result.lines == ["facet\tvalue\tcount", "v\t11\t2"] + (1...9).map { "v\t\($0)\t1" } + ["v\t\\N\t\\N"])
        let exact = try database.run(["query", "t", "--where", "v <= 10", "--facet", "v", "--format", "tsv"])
        #expect(exact.lines == ["facet\tvalue\tcount"] + (1...10).map { "v\t\($0)\t1" })
    }

    @Test("An odd column name is quoted, and a value that looks like SQL is only a value")
    func quoting() throws {
        let database = try TestDatabase.with(
            """
            CREATE TABLE "we""ird"("a""b" TEXT, "select" INTEGER);
            INSERT INTO "we""ird" VALUES ('x''); DROP TABLE t; --', 1), ('x''); DROP TABLE t; --', 2), ('y', 1);
            """)
        let result = try database.run([
            "query", #"we"ird"#, "--where", #"select >= 1"#, "--facet", #"a"b"#, "--facet", "select", "--format",
            "ndjson",
        ])
        #expect(result.status == 0)
        #expect(
            result.lines.suffix(2) == [
                #"{"$facet":"a\"b","values":[{"value":"x'); DROP TABLE t; --","count":2},{"value":"y","count":1}],"more":false}"#,
                #"{"$facet":"select","values":[{"value":1,"count":2},{"value":2,"count":1}],"more":false}"#,
            ])
    }

    @Test("A wrong facet name exits 2 with a suggestion; so do --facet-size 0 and --count with --facet")
    func usageErrors() throws {
        let database = try TestDatabase.with(Self.schema)
        for command in ["query", "watch"] {
            let result = try database.run([command, "t", "--facet", "stats"])
            #expect(result.status == 2)
            #expect(result.output.isEmpty)
            #expect(
                result.errors.hasPrefix(
                    #"Error: --facet: no such column: "stats" in table "t"; did you mean "status"?"#))
            #expect(result.errors.contains(#"columns of "t": id, status, n"#))
        }
        let size = try database.run(["query", "t", "--facet", "status", "--facet-size", "0"])
        #expect(size.status == 2)
        #expect(size.errors.hasPrefix("Error: --facet-size must be at least 1"))
        let negative = try database.run(["query", "t", "--facet", "status", "--facet-size", "-1"])
        #expect(negative.status == 2)
        let count = try database.run(["query", "t", "--facet", "status", "--count"])
        #expect(count.status == 2)
        #expect(count.errors.hasPrefix("Error: --facet cannot be combined with --count"))
    }

    @Test("A facet follows declared foreign keys: counts by the referenced row's column")
    func acrossForeignKeys() throws {
        let database = try TestDatabase.with(
            """
            CREATE TABLE teams(id INTEGER PRIMARY KEY, city TEXT);
            CREATE TABLE heroes(id INTEGER PRIMARY KEY, name TEXT, team_id INTEGER REFERENCES teams(id));
            CREATE TABLE responses(id INTEGER PRIMARY KEY, hero_id INTEGER REFERENCES heroes(id));
            INSERT INTO teams VALUES (1, 'Oslo'), (2, 'Rome');
            INSERT INTO heroes VALUES (1, 'lina', 1), (2, 'axe', 2), (3, 'io', 2);
            INSERT INTO responses VALUES (1, 1), (2, 2), (3, 3), (4, 3), (5, NULL), (6, 1), (7, 2);
            """)
        let result = try database.run([
            "query", "responses", "--where", "id <= 6", "--facet", "hero_id.name", "--facet", "hero_id.team_id.city",
            "--format", "json",
        ])
        #expect(result.status == 0, "\(result.errors)")
        let object = try #require(JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        let facets = try #require(object["facets"] as? [String: [String: Any]])
        func counts(_ name: String) throws -> [String] {
            let values = try #require(facets[name]?["values"] as? [[String: Any]])
            return values.map { "\($0["value"].map { "\($0)" } ?? "nil"):\($0["count"] as? Int ?? -1)" }
        }
        // Rows 1 to 6: lina ×2, io ×2, axe ×1, a null key ×1; Rome (axe, io) ×3, Oslo ×2.
        #expect(try counts("hero_id.name") == ["io:2", "lina:2", "<null>:1", "axe:1"])
        #expect(try counts("hero_id.team_id.city") == ["Rome:3", "Oslo:2", "<null>:1"])

        let wrong = try database.run(["query", "responses", "--facet", "hero_id.nme"])
        #expect(wrong.status == 2)
        #expect(wrong.errors.contains("name"), "\(wrong.errors)")
    }

    @Test("--explain shows each facet's statement, its bound values and its plan")
    func explain() throws {
        let database = try TestDatabase.with(Self.schema)
        let result = try database.run([
            "query", "t", "--where", "status = 'open'", "--facet", "n", "--facet-size", "4", "--explain",
        ])
        #expect(result.status == 0)
        let blocks = result.output.components(separatedBy: "\n\n")
        try #require(blocks.count == 2)
        #expect(blocks[0].hasPrefix("SELECT * FROM \"t\" WHERE \"status\" = ?\n-- arguments: 'open'\n"))
        #expect(
            blocks[1].hasPrefix(
                """
                SELECT "n", count(*) FROM "t" WHERE "status" = ? GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT ?
                -- arguments: 'open', 5
                -- plan:
                """))
    }

    @Test("watch redraws the facet counts after a commit by the sqlite3 shell")
    func watchRedraws() async throws {
        let database = try TestDatabase.with(Self.schema)
        let watch = try RunningCommand([
            "watch", "t", "--where", "id <= 5", "--facet", "status", "--format", "tsv", "--db", database.path,
        ])
        try await watch.output.waitFor("-- 5 rows, last change at ")
        try SQLiteShell.run(database.path, "UPDATE t SET status = 'closed' WHERE id IN (1, 4)")
        try await watch.output.waitFor("-- 5 rows, last change at ", occurrences: 2)
        let blocks = watch.output.text.components(separatedBy: "\n-- ")
        try #require(blocks.count == 3)
        #expect(blocks[0] == "facet\tvalue\tcount\nstatus\t\\N\t2\nstatus\topen\t2\nstatus\tclosed\t1")
        #expect(blocks[1].hasSuffix("\nfacet\tvalue\tcount\nstatus\tclosed\t3\nstatus\t\\N\t1\nstatus\topen\t1"))

        watch.interrupt()
        #expect(try await watch.exitStatus() == 0)
    }

    @Test("watch in JSON redraws rows and facets as one object")
    func watchJSON() async throws {
        let database = try TestDatabase.with(Self.schema)
        let watch = try RunningCommand([
            "watch", "t", "--where", "n = 2", "--columns", "id", "--facet", "status", "--format", "json", "--db",
            database.path,
        ])
        try await watch.output.waitFor("-- 2 rows, last change at ")
        try SQLiteShell.run(database.path, "INSERT INTO t VALUES (7, 'open', 2)")
        try await watch.output.waitFor("-- 3 rows, last change at ")
        let blocks = watch.output.text.components(separatedBy: "\n-- ")
        try #require(blocks.count == 3)
        let last = String(blocks[1].drop { $0 != "\n" }.dropFirst())
        let object = try #require(JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any])
        #expect((object["rows"] as? [[String: Any]])?.map { $0["id"] as? Int } == [2, 5, 7])
        let facet = try #require((object["facets"] as? [String: [String: Any]])?["status"])
        let values = try #require(facet["values"] as? [[String: Any]])
        #expect(values.map { $0["value"] as? String } == ["open", nil])
        #expect(values.map { $0["count"] as? Int } == [2, 1])

        watch.interrupt()
        #expect(try await watch.exitStatus() == 0)
    }
}
