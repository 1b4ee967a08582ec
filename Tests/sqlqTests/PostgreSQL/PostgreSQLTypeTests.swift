#if PostgreSQL
    import Foundation
    import PostgreSQL
    import PostgreSQLTestServer
    import Testing

    /// Column types whose values PostgreSQL compares otherwise than SQLite does: each filter gives
    /// the rows SQLite gives for the same values (the same JSON on both), or is refused with
    /// exit 2, naming the column and its type.
    @Suite("sqlq on PostgreSQL: column types compare as on SQLite", .postgreSQLInstalled, .onProcessThreads)
    struct PostgreSQLTypeTests {
        /// Each filter's JSON on the twins, which must be the same.
        static func expectSameRows(
            _ twins: TwinDatabases, table: String, _ filters: [String], sort: String = "id",
            sourceLocation: SourceLocation = #_sourceLocation
        ) async throws {
            for filter in filters {
                let (sqlite, postgreSQL) = try await twins.run([
                    "query", table, "--where", filter, "--sort", sort, "--format", "json",
                ])
                #expect(sqlite.status == 0, "\(filter): \(sqlite.errors)", sourceLocation: sourceLocation)
                #expect(
                    postgreSQL.output == sqlite.output, "\(filter)\nPostgreSQL: \(postgreSQL.errors)",
                    sourceLocation: sourceLocation)
            }
        }

        @Test("a double compares with an integer beyond 2^53 exactly, as SQLite compares them")
        func doubleAgainstLargeIntegers() async throws {
            let values = [
                "-9007199254740992", "9007199254740990", "9007199254740992", "9007199254740994", "9007199254740996",
                "1152921504606846976", "9223372036854775807", "1.5",
            ]
            let twins = try await TwinDatabases.make(
                ["CREATE TABLE t (id integer PRIMARY KEY, r double precision)"]
                    + values.enumerated().map { "INSERT INTO t VALUES (\($0 + 1), \($1))" })
            let server = twins.postgreSQL
            defer { Task { await server.close() } }
            var filters: [String] = []
            for number in [
                "9007199254740993", "-9007199254740993", "9007199254740991", "1152921504606846977",
                "9223372036854775807", "-9223372036854775808",
            ] {
                filters += ["=", "!=", "<", "<=", ">", ">="].map { "r \($0) \(number)" }
                filters += ["r in (\(number), 1.5)", "not r in (\(number))", "not (r = \(number))"]
            }
            filters += [
                "r between 9007199254740991 and 9007199254740995",
                "r not between 9007199254740993 and 1152921504606846977",
                "r = '9007199254740993'",
            ]
            try await Self.expectSameRows(twins, table: "t", filters)
        }

        @Test("a real compares as the value it prints, as SQLite compares the same value")
        func realPrintsAndComparesAlike() async throws {
            let twins = try await TwinDatabases.make([
                "CREATE TABLE t (id integer PRIMARY KEY, f4 real)",
                "INSERT INTO t VALUES (1, 0.1), (2, 0.5), (3, 1.1), (4, 3.3), (5, 16777216), (6, 0.001), (7, NULL)",
            ])
            let server = twins.postgreSQL
            defer { Task { await server.close() } }
            let all = try await twins.run(["query", "t", "--sort", "f4,id", "--format", "json"])
            #expect(all.postgreSQL.output == all.sqlite.output)
            try await Self.expectSameRows(
                twins, table: "t",
                [
                    "f4 = 0.1", "f4 != 0.1", "f4 < 1.1", "f4 >= 1.1", "f4 in (0.1, 3.3)", "f4 = 0.10000000149011612",
                    "f4 between 0.1 and 1.1", "f4 = 16777216", "f4 > 16777215", "f4 = '0.5'",
                ])
        }

        @Test("an enum compares and sorts as its text, and a value that is no label is refused")
        func enumsCompareAsText() async throws {
            let twins = try await TwinDatabases.make(
                [
                    "CREATE TABLE t (id integer PRIMARY KEY, m text)",
                    "INSERT INTO t VALUES (1, 'mid'), (2, 'alpha'), (3, 'zed'), (4, 'Beta'), (5, NULL), (6, 'mid')",
                ],
                postgreSQLOnly: [
                    "CREATE TYPE mood AS ENUM ('zed', 'mid', 'alpha', 'Beta')",
                    "ALTER TABLE t ALTER COLUMN m TYPE mood USING m::mood",
                ])
            let server = twins.postgreSQL
            defer { Task { await server.close() } }
            try await Self.expectSameRows(
                twins, table: "t",
                [
                    "m < 'mid'", "m >= 'alpha'", "m between 'Beta' and 'mid'", "m = 'alpha'", "m != 'zed'",
                    "m in ('zed', 'Beta')",
                ])
            for sort in ["m,id", "-m,id"] {
                let (sqlite, postgreSQL) = try await twins.run(["query", "t", "--sort", sort, "--format", "json"])
                #expect(postgreSQL.output == sqlite.output, "\(sort)")
            }
            let (sqliteFacet, postgreSQLFacet) = try await twins.run(["query", "t", "--facet", "m", "--format", "json"])
            #expect(postgreSQLFacet.output == sqliteFacet.output)
            let refused = try await twins.postgreSQL.run(["query", "t", "--where", "m = 'beta'"])
            #expect(refused.status == 2)
            #expect(refused.errors.contains("column \"m\" (mood) does not take 'beta'"), "\(refused.errors)")
        }

        @Test("a numeric is written exactly: as a JSON number only when that number reads back the same")
        func numericsAreWrittenExactly() async throws {
            let huge = "1" + String(repeating: "0", count: 400)
            let tiny = "0." + String(repeating: "0", count: 399) + "1"
            let fixture = try await PostgreSQLFixture.make([
                "CREATE TABLE t (id integer PRIMARY KEY, n numeric)",
                """
                INSERT INTO t VALUES (1, 1e-400), (2, 2.50), (3, 1e400), (4, 123456789012345678901234567890.123),
                    (5, 0.30000000000000004), (6, -0.1), (7, 0), (8, 1e-320)
                """,
            ])
            defer { Task { await fixture.close() } }
            let json = try await fixture.run(["query", "t", "--sort", "id", "--format", "ndjson"])
            #expect(json.status == 0, "\(json.errors)")
            #expect(
                json.output == """
                    {"id":1,"n":"\(tiny)"}
                    {"id":2,"n":2.5}
                    {"id":3,"n":"\(huge)"}
                    {"id":4,"n":"123456789012345678901234567890.123"}
                    {"id":5,"n":0.30000000000000004}
                    {"id":6,"n":-0.1}
                    {"id":7,"n":0}
                    {"id":8,"n":1e-320}

                    """)
            let csv = try await fixture.run(["query", "t", "--sort", "id", "--columns", "n", "--format", "csv"])
            #expect(csv.output.split(separator: "\r\n").dropFirst().prefix(3) == [tiny[...], "2.50", huge[...]])
            let table = try await fixture.run(["query", "t", "--sort", "id", "--columns", "n", "--where", "id = 1"])
            #expect(table.output.contains(tiny), "\(table.output)")
        }

        @Test("a domain is its base type: an integer domain compares with numbers and prints as one")
        func domainsAreTheirBaseType() async throws {
            let twins = try await TwinDatabases.make(
                [
                    "CREATE TABLE t (id integer PRIMARY KEY, p integer)",
                    "INSERT INTO t VALUES (1, 1), (2, 2), (3, 30), (4, NULL)",
                ],
                postgreSQLOnly: [
                    "CREATE DOMAIN posint AS integer CHECK (VALUE > 0)", "CREATE DOMAIN small AS posint",
                    "ALTER TABLE t ALTER COLUMN p TYPE small",
                ])
            let server = twins.postgreSQL
            defer { Task { await server.close() } }
            try await Self.expectSameRows(
                twins, table: "t", ["p > 1", "p = 2", "p between 1 and 2", "p < 0", "p in (30, 2.5)", "p", "p = '2'"])
            let (sqlite, postgreSQL) = try await twins.run(["query", "t", "--sort", "-p", "--format", "json"])
            #expect(postgreSQL.output == sqlite.output)
        }

        @Test("a number for a column that takes quoted values is refused in words")
        func otherColumnsRefuseNumbersInWords() async throws {
            let fixture = try await PostgreSQLFixture.make(["CREATE TABLE t (id integer PRIMARY KEY, u uuid)"])
            defer { Task { await fixture.close() } }
            let result = try await fixture.run(["query", "t", "--where", "u = 1"])
            #expect(result.status == 2)
            #expect(
                result.errors.contains(
                    "column \"u\" (uuid) takes values written as quoted text, such as '1', but the number 1 is a number"
                ),
                "\(result.errors)")
            #expect(!result.errors.contains(",,"))
        }

        @Test("a dotted name follows a foreign key to a partitioned table, from a table and from a partition")
        func foreignKeysToPartitionedTables() async throws {
            let fixture = try await PostgreSQLFixture.make([
                "CREATE TABLE parts (id integer PRIMARY KEY, name text) PARTITION BY RANGE (id)",
                "CREATE TABLE parts_low PARTITION OF parts FOR VALUES FROM (0) TO (10)",
                "CREATE TABLE parts_high PARTITION OF parts FOR VALUES FROM (10) TO (20)",
                "INSERT INTO parts VALUES (1, 'one'), (11, 'eleven')",
                "CREATE TABLE refs (id integer, part integer REFERENCES parts (id)) PARTITION BY RANGE (id)",
                "CREATE TABLE refs_all PARTITION OF refs FOR VALUES FROM (0) TO (100)",
                "INSERT INTO refs VALUES (1, 1), (2, 11), (3, NULL)",
            ])
            defer { Task { await fixture.close() } }
            for table in ["refs", "refs_all"] {
                let result = try await fixture.run([
                    "query", table, "--where", "part.name = 'eleven' or part.name is null", "--columns", "id,part.name",
                    "--sort", "id", "--format", "csv",
                ])
                #expect(result.status == 0, "\(table): \(result.errors)")
                #expect(result.output == "id,part.name\r\n2,eleven\r\n3,\r\n", "\(table)")
            }
        }

        @Test("dates, times and char(n) compare as their text, as SQLite compares the text they print")
        func datesAndPaddedText() async throws {
            let twins = try await TwinDatabases.make([
                "CREATE TABLE t (id integer PRIMARY KEY, ts timestamp, d date, c char(4))",
                """
                INSERT INTO t VALUES (1, '2026-03-01 00:00:00', '2026-03-01', 'ab'),
                    (2, '2026-03-01 10:30:00', '2026-02-28', 'abcd'), (3, '2026-02-28 23:59:59', '2026-03-02', 'a'),
                    (4, '2026-03-02 00:00:00', NULL, NULL), (5, '2026-03-01 00:00:00.5', '2026-03-01', 'b c')
                """,
            ])
            let server = twins.postgreSQL
            defer { Task { await server.close() } }
            try await Self.expectSameRows(
                twins, table: "t",
                [
                    "ts > 2026-03-01", "ts >= 2026-03-01", "ts < 2026-03-01", "ts <= 2026-03-01", "ts = 2026-03-01",
                    "ts != 2026-03-01", "ts between 2026-02-28 and 2026-03-01", "ts > '2026-03-01 00:00:00'",
                    "ts <= 2026-03-01T10:30", "ts in ('2026-03-01', '2026-03-02 00:00:00')", "ts < '2026-03-01 00:00'",
                    "d = 2026-03-01", "d < 2026-03-01T00:00", "d >= '2026-03'",
                    "c = 'ab'", "c = 'ab  '", "c < 'ab '", "c > 'a'", "c like 'ab%'", "c contains ' '",
                    "c in ('a', 'a   ')", "c between 'a ' and 'b'",
                ])
            for sort in ["ts,id", "-d,id", "c,id"] {
                let (sqlite, postgreSQL) = try await twins.run(["query", "t", "--sort", sort, "--format", "json"])
                #expect(postgreSQL.output == sqlite.output, "\(sort)")
            }
        }

        @Test("a value the column's type refuses, or an operator it lacks, is a usage error naming the column")
        func refusedValuesAreUsageErrors() async throws {
            let fixture = try await PostgreSQLFixture.make([
                "CREATE TYPE mood AS ENUM ('alpha', 'mid')",
                "CREATE TABLE t (id integer PRIMARY KEY, u uuid, m mood, j json, k jsonb)",
                "INSERT INTO t VALUES (1, '00000000-0000-0000-0000-000000000001', 'mid', '{}', '{}')",
            ])
            defer { Task { await fixture.close() } }
            for (arguments, message) in [
                (["--where", "u = 'nonsense'"], "column \"u\" (uuid) does not take 'nonsense'"),
                (
                    ["--where", "u in ('00000000-0000-0000-0000-000000000001', 'x')"],
                    "column \"u\" (uuid) does not take 'x'"
                ),
                (["--where", "m = 'beta'"], "column \"m\" (mood) does not take 'beta'"),
                (["--where", "m between 'alpha' and 'omega'"], "column \"m\" (mood) does not take 'omega'"),
                (["--where", "j = '{}'"], "column \"j\" (json) cannot be compared with ="),
                (["--where", "j = j"], "column \"j\" (json) cannot be compared with ="),
                (["--where", "j = k"], "cannot be compared: their types differ"),
                (["--sort", "j"], "column \"j\" (json) cannot be sorted or counted"),
                (["--facet", "j"], "column \"j\" (json) cannot be sorted or counted"),
            ] {
                let result = try await fixture.run(["query", "t"] + arguments)
                #expect(result.status == 2, "\(arguments): \(result.errors)")
                #expect(result.errors.contains(message), "\(arguments): \(result.errors)")
            }
            let fine = try await fixture.run([
                "query", "t", "--where", "u = '00000000-0000-0000-0000-000000000001' and m = 'mid' and k = '{}'",
                "--columns", "id",
            ])
            #expect(fine.status == 0, "\(fine.errors)")
            #expect(fine.output.contains("1"))
        }

        @Test("an interval compares and sorts as its printed text, as SQLite compares the text it prints")
        func intervalsCompareAsText() async throws {
            // SQLite's twin holds the text PostgreSQL prints (an "interval" column would have integer affinity).
            let twins = try await TwinDatabases.make(
                [
                    "CREATE TABLE t (id integer PRIMARY KEY, iv text)",
                    """
                    INSERT INTO t VALUES (1, '1 day'), (2, '24:00:00'), (3, '01:30:00'), (4, '2 days'), (5, NULL),
                        (6, '-01:00:00')
                    """,
                ],
                postgreSQLOnly: ["ALTER TABLE t ALTER COLUMN iv TYPE interval USING iv::interval"])
            let server = twins.postgreSQL
            defer { Task { await server.close() } }
            try await Self.expectSameRows(
                twins, table: "t",
                [
                    "iv = '24 hours'", "iv = '1 day'", "iv != '24:00:00'", "iv < '2'", "iv > '01:30:00'",
                    "iv in ('1 day', '24:00:00', '1 hour')", "iv between '0' and '1 day'",
                ])
            for sort in ["iv,id", "-iv,id"] {
                let (sqlite, postgreSQL) = try await twins.run(["query", "t", "--sort", sort, "--format", "json"])
                #expect(postgreSQL.output == sqlite.output, "\(sort)")
            }
        }

        @Test("NaN in a float column is null, as SQLite stores it: in tests, sorts, facets and every format")
        func notANumberIsNull() async throws {
            // SQLite stores a NaN as NULL, so its twin holds NULL where PostgreSQL holds NaN.
            let twins = try await TwinDatabases.make(
                [
                    "CREATE TABLE t (id integer PRIMARY KEY, r double precision, f real)",
                    "INSERT INTO t VALUES (1, 1.5, 1.5), (2, NULL, NULL), (3, NULL, NULL), (4, -2, -2), (5, 0, 0)",
                ],
                postgreSQLOnly: ["UPDATE t SET r = 'NaN', f = 'NaN' WHERE id = 3"])
            let server = twins.postgreSQL
            defer { Task { await server.close() } }
            try await Self.expectSameRows(
                twins, table: "t",
                [
                    "r > 0", "r >= -2", "r is null", "r is not null", "r = null", "r != null", "r != 0", "not r > 0",
                    "r", "not r", "r between -5 and 5", "r in (1.5, 0)", "not r in (1.5)", "r = f",
                    "r > 9007199254740993",
                    "f > 0", "f is null", "f = 1.5", "not f < 1",
                ])
            for sort in ["r,id", "-r,id", "f,id", "-f,id"] {
                let (sqlite, postgreSQL) = try await twins.run(["query", "t", "--sort", sort, "--format", "json"])
                #expect(postgreSQL.output == sqlite.output, "\(sort)")
            }
            let csv = try await server.run(["query", "t", "--where", "id = 3", "--format", "csv"])
            #expect(csv.output == "id,r,f\r\n3,,\r\n", "\(csv.errors)")
            let table = try await server.run(["query", "t", "--sort", "id"])
            #expect(table.status == 0 && !table.output.contains("NaN"), "\(table.output)")
            let (sqliteFacet, postgreSQLFacet) = try await twins.run([
                "query", "t", "--facet", "r", "--sort", "id", "--format", "json",
            ])
            #expect(postgreSQLFacet.output == sqliteFacet.output)
        }

        @Test("like and contains match byte by byte on a column with a nondeterministic collation")
        func patternsUnderNondeterministicCollations() async throws {
            let twins = try await TwinDatabases.make(
                [
                    "CREATE TABLE t (id integer PRIMARY KEY, v text)",
                    "INSERT INTO t VALUES (1, 'ABC'), (2, 'abd'), (3, 'x'), (4, NULL), (5, 'aBc')",
                ],
                postgreSQLOnly: [
                    "CREATE COLLATION ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false)",
                    "ALTER TABLE t ALTER COLUMN v TYPE text COLLATE ci",
                ])
            let server = twins.postgreSQL
            defer { Task { await server.close() } }
            try await Self.expectSameRows(
                twins, table: "t",
                [
                    "v like 'ab%'", "v not like 'AB_'", "v contains 'B'", "v = 'abc'", "v in ('abc', 'x')",
                    "v < 'b'", "not v in ('ABC')",
                ])
        }
    }
#endif
