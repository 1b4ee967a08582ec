#if PostgreSQL
    import Foundation
    import PostgreSQL
    import PostgreSQLTestServer
    import Testing

    /// sqlq on a database whose settings change how PostgreSQL prints values and reads literals:
    /// the same answers as on a database that keeps the defaults, and as on SQLite.
    @Suite("sqlq on PostgreSQL whatever the database's settings", .postgreSQLInstalled, .onProcessThreads)
    struct PostgreSQLSettingsTests {
        static let oddSettings = [
            "extra_float_digits = 0", "DateStyle = 'SQL, DMY'", "IntervalStyle = 'sql_standard'",
            "bytea_output = 'escape'", "standard_conforming_strings = off", "TimeZone = 'America/Caracas'",
        ]

        /// Gives the fixture's database ``oddSettings``, which its later sessions (sqlq's) start with.
        static func makeOdd(_ fixture: PostgreSQLFixture) async throws {
            let name = String.quotedIdentifier(fixture.database.configuration.database)
            for setting in oddSettings { try await fixture.database.execute("ALTER DATABASE \(name) SET \(setting)") }
        }

        @Test("A twin whose database has other settings answers as SQLite does")
        func twin() async throws {
            let twins = try await TwinDatabases.make([
                "CREATE TABLE m (id integer PRIMARY KEY, x double precision, d date, t text)",
                """
                INSERT INTO m VALUES (1, 0.30000000000000004, '2026-03-01', 'back\\slash'), (2, 0.3, '2026-12-31', 'b'),
                    (3, 2.5, NULL, NULL)
                """,
            ])
            let postgreSQL = twins.postgreSQL
            defer { Task { await postgreSQL.close() } }
            try await Self.makeOdd(postgreSQL)
            for arguments in [
                ["query", "m", "--sort", "id", "--format", "csv"],
                ["query", "m", "--sort", "id", "--format", "json"],
                ["query", "m", "--where", "x = 0.30000000000000004", "--columns", "id"],
                ["query", "m", "--where", "x = 0.3", "--columns", "id"],
                ["query", "m", "--where", "d < '2026-06-01'", "--columns", "id"],
                ["query", "m", "--where", "t contains 'b'", "--columns", "id", "--sort", "id"],
                ["query", "m", "--where", "t like '%\\\\%'", "--columns", "id"],
                ["query", "m", "--where", "t contains '\\\\'", "--columns", "id"],
            ] {
                let (sqlite, postgreSQL) = try await twins.run(arguments)
                #expect(sqlite.status == 0, "\(arguments): \(sqlite.errors)")
                #expect(postgreSQL.status == sqlite.status, "\(arguments): \(postgreSQL.errors)")
                #expect(postgreSQL.output == sqlite.output, "\(arguments)")
            }
        }

        static let schema = [
            """
            CREATE TABLE p (
                id integer PRIMARY KEY, x double precision, d date, i interval, b bytea, t text, ts timestamptz)
            """,
            "CREATE TABLE q (LIKE p)",
            """
            INSERT INTO p VALUES
                (1, 0.1::float8 + 0.2::float8, '2026-03-01', '1 day 02:03:04', '\\x01ff', 'a\\b', '2026-03-01 12:00:00+00'),
                (2, 1e-300, '0044-03-15 BC', '-1 year -2 mons', '\\x', 'it''s', '2026-12-31 23:59:59.5+00')
            """,
        ]

        @Test("Values print, filter and round-trip through CSV as on a database with the defaults")
        func output() async throws {
            let odd = try await PostgreSQLFixture.make(Self.schema)
            let plain = try await PostgreSQLFixture.make(Self.schema)
            defer {
                Task {
                    await odd.close()
                    await plain.close()
                }
            }
            try await Self.makeOdd(odd)
            let all = ["query", "p", "--sort", "id", "--format", "csv"]
            let expected = try await plain.run(all)
            #expect(expected.status == 0, "\(expected.errors)")
            #expect(expected.output.contains("0.30000000000000004,2026-03-01,1 day 02:03:04,\\x01ff,a\\b"))
            let shown = try await odd.run(all)
            #expect(shown.output == expected.output, "\(shown.errors)")
            for filter in [
                "x = 0.30000000000000004", "d = '2026-03-01'", "t contains 'a'", "ts < '2026-03-01 12:00:01'",
            ] {
                let found = try await odd.run(["query", "p", "--where", filter, "--columns", "id", "--format", "csv"])
                #expect(found.status == 0, "\(filter): \(found.errors)")
                #expect(found.output == "id\r\n1\r\n", "\(filter)")
            }

            let files = try TemporaryDirectory()
            let file = try files.write("p.csv", shown.output)
            let imported = try await odd.run(["import", "q", file])
            #expect(imported.status == 0, "\(imported.errors)")
            let copied = try await odd.run(["query", "q", "--sort", "id", "--format", "csv"])
            #expect(copied.output == expected.output)
            let same = try await odd.database.fetchAll(
                "SELECT count(*) FROM p JOIN q USING (id) WHERE p.x = q.x AND p.d = q.d AND p.i = q.i AND p.b = q.b "
                    + "AND p.t = q.t AND p.ts = q.ts")
            #expect(same.first?.value(at: 0) == .integer(2), "every value came back unchanged")
        }
    }
#endif
