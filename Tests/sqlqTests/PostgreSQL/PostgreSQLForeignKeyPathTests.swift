#if PostgreSQL
    import Foundation
    import PostgreSQL
    import PostgreSQLTestServer
    import Testing

    @Suite("Dotted foreign-key paths on PostgreSQL", .postgreSQLInstalled, .onProcessThreads)
    struct PostgreSQLForeignKeyPathTests {
        static let schema = [
            "CREATE TABLE teams (id integer PRIMARY KEY, city text)",
            """
            CREATE TABLE heroes (id integer PRIMARY KEY, name text, team_id integer REFERENCES teams (id),
                mentor_id integer REFERENCES heroes (id))
            """,
            "CREATE TABLE responses (id integer PRIMARY KEY, text text, hero_id integer REFERENCES heroes (id))",
            "CREATE TABLE datums (auth text, code text, name text, PRIMARY KEY (auth, code))",
            """
            CREATE TABLE crs (id integer PRIMARY KEY, datum_auth text, datum_code text,
                FOREIGN KEY (datum_auth, datum_code) REFERENCES datums (auth, code))
            """,
            "CREATE TABLE codes (code text PRIMARY KEY, label text)",
            """
            CREATE TABLE links (id integer PRIMARY KEY, auth text, code text,
                FOREIGN KEY (auth, code) REFERENCES datums (auth, code), FOREIGN KEY (code) REFERENCES codes (code))
            """,
            "INSERT INTO teams VALUES (1, 'Rome'), (2, 'Oslo')",
            "INSERT INTO heroes VALUES (1, 'lina', 1, NULL), (2, 'axe', 2, 1), (3, 'zeus', NULL, 2)",
            "INSERT INTO responses VALUES (1, 'hi', 1), (2, 'yo', 2), (3, 'hey', 3), (4, 'anon', NULL), (5, 'again', 1)",
            "INSERT INTO datums VALUES ('EPSG', '6326', 'WGS 84'), ('EPSG', '6269', 'NAD83'), ('IGNF', '6326', 'Other')",
            "INSERT INTO crs VALUES (1, 'EPSG', '6326'), (2, 'IGNF', '6326'), (3, 'EPSG', '6269'), (4, NULL, '6326')",
            "INSERT INTO codes VALUES ('6326', 'a')",
        ]

        @Test("Paths in --where, --columns, --sort and --facet give SQLite's rows, NULL keys included")
        func sameRows() async throws {
            let twins = try await TwinDatabases.make(Self.schema)
            defer { Task { [postgreSQL = twins.postgreSQL] in await postgreSQL.close() } }
            let filters = [
                "hero_id.name = 'lina'", "hero_id.team_id.city = 'Rome'", "not hero_id.name = 'lina'",
                "hero_id.name is null", "hero_id.name is not null and hero_id.name != 'axe'",
                "hero_id.name in ('lina', 'zeus') or hero_id.team_id.city like 'o%'",
                "hero_id.name between 'a' and 'm'", "hero_id.name contains 'IN'", "not hero_id.team_id.city is null",
                "hero_id.name != text", "hero_id.mentor_id.name = 'lina' or hero_id.mentor_id.mentor_id = 1",
                "hero_id.\"name\" not in ('axe')", "not (hero_id.team_id.city like 'r%')",
            ]
            var nonEmpty = 0
            for filter in filters {
                for format in ["json", "table"] {
                    let arguments = [
                        "query", "responses", "--where", filter, "--columns",
                        "id,text,hero_id.name,hero_id.team_id.city", "--sort", "-hero_id.name,id", "--format", format,
                    ]
                    let (sqlite, postgreSQL) = try await twins.run(arguments)
                    #expect(sqlite.status == 0, "\(filter): \(sqlite.errors)")
                    #expect(postgreSQL.status == 0, "\(filter): \(postgreSQL.errors)")
                    #expect(postgreSQL.output == sqlite.output, "\(filter) (\(format))")
                    if format == "json", sqlite.output.count > 4 { nonEmpty += 1 }
                }
            }
            #expect(nonEmpty >= filters.count - 1)
            let (sqlite, postgreSQL) = try await twins.run([
                "query", "responses", "--where", "not hero_id.name = 'lina'", "--columns", "id,hero_id.name",
                "--sort", "hero_id.team_id.city,-id", "--facet", "hero_id.name", "--facet", "hero_id.team_id.city",
                "--format", "ndjson",
            ])
            #expect(
                postgreSQL.output == """
                    {"id":3,"hero_id.name":"zeus"}
                    {"id":2,"hero_id.name":"axe"}
                    {"$facet":"hero_id.name","values":[{"value":"axe","count":1},{"value":"zeus","count":1}],"more":false}
                    {"$facet":"hero_id.team_id.city","values":[{"value":null,"count":1},{"value":"Oslo","count":1}],"more":false}

                    """, "\(postgreSQL.errors)")
            #expect(postgreSQL.output == sqlite.output)
        }

        @Test("A composite foreign key is followed from any of its columns, matching them all")
        func compositeKeys() async throws {
            let twins = try await TwinDatabases.make(Self.schema)
            defer { Task { [postgreSQL = twins.postgreSQL] in await postgreSQL.close() } }
            for arguments in [
                ["--where", "datum_code.name = 'WGS 84'"], ["--where", "datum_auth.name is null"],
                ["--where", "not datum_code.name like 'n%'"], ["--columns", "id,datum_auth.name,datum_code.name"],
                ["--sort", "datum_code.name,id", "--facet", "datum_auth.name"],
            ] {
                let (sqlite, postgreSQL) = try await twins.run(
                    ["query", "crs", "--format", "json", "--sort", "id"] + arguments)
                #expect(sqlite.status == 0, "\(arguments): \(sqlite.errors)")
                #expect(postgreSQL.output == sqlite.output, "\(arguments): \(postgreSQL.errors)")
            }
            let (_, named) = try await twins.run([
                "query", "crs", "--where", "datum_code.name = 'WGS 84'", "--columns", "id", "--format", "csv",
            ])
            #expect(named.output == "id\r\n1\r\n", "\(named.errors)")
        }

        @Test("Wrong paths fail as on SQLite: the same message and exit status")
        func errors() async throws {
            let twins = try await TwinDatabases.make(Self.schema)
            defer { Task { [postgreSQL = twins.postgreSQL] in await postgreSQL.close() } }
            let deep = Array(repeating: "mentor_id", count: 9).joined(separator: ".") + ".name"
            let cases: [(table: String, arguments: [String], says: String)] = [
                ("responses", ["--where", "hero_id.nam = 'x'"], "no such column: \"nam\" in table \"heroes\""),
                ("responses", ["--where", "text.x = 1"], "column \"text\" of \"responses\" is not a foreign key"),
                ("responses", ["--columns", "id,hero_id.name.x"], "(the foreign keys of \"heroes\": "),
                ("teams", ["--sort", "city.x"], "(\"teams\" declares none)"),
                ("links", ["--where", "code.label = 'a'"], "is in 2 foreign keys"),
                ("heroes", ["--sort", deep], "sqlq follows at most 8 in one name"),
                ("responses", ["--facet", "hero_id..name"], "a column name is missing around"),
                ("responses", ["--sort", "hero_id.\"name"], "this quoted name is not closed"),
                ("responses", ["--facet", "hero_id.nme"], "did you mean \"name\"?"),
            ]
            for (table, arguments, says) in cases {
                let (sqlite, postgreSQL) = try await twins.run(["query", table] + arguments)
                #expect(sqlite.status == 2, "\(arguments): \(sqlite.errors)")
                #expect(postgreSQL.status == 2, "\(arguments): \(postgreSQL.errors)")
                #expect(postgreSQL.errors == sqlite.errors, "\(arguments)")
                #expect(postgreSQL.errors.contains(says), "\(arguments): \(postgreSQL.errors)")
            }
        }

        @Test("A key into another schema, with another collation, is followed there")
        func crossSchema() async throws {
            let fixture = try await PostgreSQLFixture.make([
                "CREATE SCHEMA geo",
                "CREATE TABLE geo.countries (code text COLLATE \"C\" PRIMARY KEY, name text)",
                "CREATE TABLE places (id integer PRIMARY KEY, country text REFERENCES geo.countries (code))",
                "INSERT INTO geo.countries VALUES ('it', 'Italy'), ('no', 'Norway')",
                "INSERT INTO places VALUES (1, 'it'), (2, 'no'), (3, NULL), (4, 'it')",
            ])
            defer { Task { await fixture.close() } }
            let json = try await fixture.run([
                "query", "places", "--where", "country.name != 'Norway'", "--columns", "id,country.name", "--sort",
                "-id", "--facet", "country.name", "--format", "json",
            ])
            #expect(json.status == 0, "\(json.errors)")
            #expect(
                json.output == """
                    {"facets":{
                    "country.name":{"values":[{"value":"Italy","count":2}],"more":false}
                    },
                    "rows":[
                    {"id":4,"country.name":"Italy"},
                    {"id":1,"country.name":"Italy"}
                    ]
                    }

                    """)
            let nulls = try await fixture.run([
                "query", "places", "--where", "country.name is null or not country.name = 'Italy'", "--columns", "id",
                "--sort", "id", "--format", "csv",
            ])
            #expect(nulls.output == "id\r\n2\r\n3\r\n", "\(nulls.errors)")
            let wrong = try await fixture.run(["query", "places", "--where", "id.name = 'x'"])
            #expect(wrong.status == 2)
            #expect(
                wrong.errors.hasPrefix(
                    "Error: --where: column \"id\" of \"places\" is not a foreign key (the foreign keys of \"places\": "
                        + "(country) → geo.countries(code)), so \"name\" cannot follow it\n"), "\(wrong.errors)")
        }
    }
#endif
