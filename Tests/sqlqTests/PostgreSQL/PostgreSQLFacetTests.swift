#if PostgreSQL
    import Foundation
    import PostgreSQL
    import PostgreSQLTestServer
    import Testing

    @Suite("--facet and --explain on PostgreSQL", .postgreSQLInstalled, .onProcessThreads)
    struct PostgreSQLFacetTests {
        static let schema = [
            "CREATE TABLE lists (id integer PRIMARY KEY, name text)",
            """
            CREATE TABLE items (id integer PRIMARY KEY, title text, status text, priority integer,
                list_id integer REFERENCES lists (id))
            """,
            "INSERT INTO lists VALUES (1, 'Home'), (2, 'Work'), (3, 'work')",
            """
            INSERT INTO items VALUES (1, 'milk', 'open', 3, 1), (2, 'bread', 'done', 1, 1), (3, 'report', 'open', 5, 2),
                (4, 'apples', NULL, NULL, NULL), (5, 'taxes', 'Open', 3, 3), (6, 'call', 'open', 2, 2),
                (7, 'mail', 'done', 3, 2), (8, 'plan', 'b', 1, NULL)
            """,
        ]

        @Test("Facets print as on SQLite in every format: counts, order, sizes and the note of more values")
        func everyFormat() async throws {
            let twins = try await TwinDatabases.make(Self.schema)
            defer { Task { [postgreSQL = twins.postgreSQL] in await postgreSQL.close() } }
            for format in ["table", "markdown", "json", "ndjson", "csv", "tsv"] {
                for extra in [
                    ["--facet", "status", "--facet", "list_id.name", "--facet", "priority"],
                    ["--facet", "status", "--facet-size", "2", "--where", "priority >= 2", "--columns", "id,title"],
                    ["--facet", "list_id.name", "--facet", "status", "--facet-size", "1", "--limit", "2"],
                    ["--facet", "list_id.name", "--where", "list_id.name != 'Home'", "--facet", "LIST_ID.NAME"],
                ] {
                    let arguments = ["query", "items", "--sort", "id", "--format", format] + extra
                    let (sqlite, postgreSQL) = try await twins.run(arguments)
                    #expect(sqlite.status == 0, "\(arguments): \(sqlite.errors)")
                    #expect(postgreSQL.status == 0, "\(arguments): \(postgreSQL.errors)")
                    #expect(postgreSQL.output == sqlite.output, "\(arguments)")
                }
            }
            let (_, csv) = try await twins.run([
                "query", "items", "--facet", "status", "--facet", "list_id.name", "--facet-size", "3", "--format",
                "csv",
            ])
            #expect(
                csv.output == """
                    facet,value,count\r
                    status,open,3\r
                    status,done,2\r
                    status,,1\r
                    status,,\r
                    list_id.name,Work,3\r
                    list_id.name,,2\r
                    list_id.name,Home,2\r
                    list_id.name,,\r

                    """, "\(csv.errors)")
            for arguments in [["--facet", "statu"], ["--facet", "status", "--count"], ["--facet", ""]] {
                let (sqlite, postgreSQL) = try await twins.run(["query", "items"] + arguments)
                #expect(sqlite.status == 2, "\(arguments)")
                #expect(postgreSQL.status == 2, "\(arguments)")
                #expect(postgreSQL.errors == sqlite.errors, "\(arguments)")
            }
        }

        @Test("Facets of PostgreSQL's own types show their values as the rows do")
        func ownTypes() async throws {
            let fixture = try await PostgreSQLFixture.make([
                "CREATE TABLE t (id integer PRIMARY KEY, done boolean, price numeric, day date)",
                """
                INSERT INTO t VALUES (1, true, 2.50, '2026-03-01'), (2, false, 2.50, '2026-03-01'),
                    (3, true, 12345678901234567890.5, NULL), (4, NULL, NULL, '2026-01-02')
                """,
            ])
            defer { Task { await fixture.close() } }
            let json = try await fixture.run([
                "query", "t", "--columns", "id", "--facet", "done", "--facet", "price", "--facet", "day",
                "--where", "id < 4", "--format", "ndjson", "--sort", "id",
            ])
            #expect(json.status == 0, "\(json.errors)")
            #expect(
                json.output == """
                    {"id":1}
                    {"id":2}
                    {"id":3}
                    {"$facet":"done","values":[{"value":true,"count":2},{"value":false,"count":1}],"more":false}
                    {"$facet":"price","values":[{"value":2.5,"count":2},{"value":"12345678901234567890.5","count":1}],"more":false}
                    {"$facet":"day","values":[{"value":"2026-03-01","count":2},{"value":null,"count":1}],"more":false}

                    """)
            let table = try await fixture.run(["query", "t", "--columns", "id", "--facet", "done", "--where", "id = 1"])
            #expect(
                table.output == """
                     id
                    ----
                      1
                    (1 row)

                     done | count
                    ------+-------
                     t    |     1

                    """, "\(table.errors)")
        }

        @Test("--explain prints each statement, its arguments and PostgreSQL's plan, and runs nothing")
        func explain() async throws {
            let fixture = try await PostgreSQLFixture.make(
                Self.schema + [
                    "CREATE TABLE log (at integer)",
                    "CREATE FUNCTION noted() RETURNS integer LANGUAGE sql VOLATILE AS 'INSERT INTO log VALUES (1) RETURNING 1'",
                    "CREATE VIEW noisy AS SELECT id, title, noted() AS n FROM items",
                ])
            defer { Task { await fixture.close() } }
            let explained = try await fixture.run([
                "query", "items", "--where", "list_id.name = 'Work' and title != 'it''s\\nodd'", "--sort", "-priority",
                "--limit", "3", "--facet", "status", "--explain",
            ])
            #expect(explained.status == 0, "\(explained.errors)")
            let statements = explained.output.components(separatedBy: "\n\n")
            #expect(statements.count == 2, "\(explained.output)")
            #expect(
                explained.output.hasPrefix(
                    """
                    SELECT "id"::text AS "id", "title"::text AS "title", "status"::text AS "status", \
                    "priority"::text AS "priority", "list_id"::text AS "list_id" FROM "items" WHERE \
                    "items"."list_id" IN (SELECT "1"."id" FROM "public"."lists" AS "1" WHERE ("1"."name" COLLATE "C") = $1) \
                    AND ("items"."title" COLLATE "C") <> $2 ORDER BY "items"."priority" DESC NULLS LAST LIMIT $3
                    -- arguments: 'Work', 'it''s' || chr(10) || 'odd', 3
                    -- plan:
                    --   Limit
                    """), "\(explained.output)")
            #expect(
                statements.last?.hasPrefix(
                    """
                    SELECT "facet"."value"::text, "facet"."count" FROM (SELECT ("items"."status" COLLATE "C") AS \
                    "value", count(*) AS "count" FROM "items" WHERE "items"."list_id" IN (SELECT "1"."id" FROM \
                    "public"."lists" AS "1" WHERE ("1"."name" COLLATE "C") = $1) AND ("items"."title" COLLATE "C") \
                    <> $2 GROUP BY 1) AS "facet" ORDER BY "facet"."count" DESC, "facet"."value" ASC NULLS FIRST \
                    LIMIT $3
                    -- arguments: 'Work', 'it''s' || chr(10) || 'odd', 11
                    -- plan:
                    --   Limit
                    """) == true, "\(explained.output)")
            #expect(!explained.output.contains("actual time"))
            // Every line below a statement is a comment: no value can end one.
            for statement in statements {
                #expect(statement.split(separator: "\n").dropFirst().allSatisfy { $0.hasPrefix("-- ") })
            }

            // A query of the view runs its function, which writes; an explained one does not.
            let log = "SELECT count(*) FROM log"
            let explainedView = try await fixture.run(["query", "noisy", "--explain"])
            #expect(explainedView.status == 0, "\(explainedView.errors)")
            #expect(explainedView.output.contains("-- arguments: none\n-- plan:\n--   Subquery Scan on noisy"))
            #expect(try await fixture.database.fetchAll(log)[0].value(at: 0) == .integer(0))
            let ran = try await fixture.run(["query", "noisy", "--format", "csv"])
            #expect(ran.status == 0, "\(ran.errors)")
            #expect(try await fixture.database.fetchAll(log)[0].value(at: 0) == .integer(8))
        }

        @Test("--search stays refused, with its message")
        func search() async throws {
            let fixture = try await PostgreSQLFixture.make(Self.schema)
            defer { Task { await fixture.close() } }
            let result = try await fixture.run(["query", "items", "--search", "milk"])
            #expect(result.status == 2)
            #expect(result.errors == "Error: --search is not available on PostgreSQL yet\n")
        }
    }
#endif
