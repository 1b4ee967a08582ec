#if PostgreSQL
    import Foundation
    import PostgreSQL
    import PostgreSQLTestServer
    import Testing

    @Suite("sqlq delete on PostgreSQL", .postgreSQLInstalled, .onProcessThreads)
    struct PostgreSQLDeleteTests {
        static let schema = [
            "CREATE TABLE lists (id integer PRIMARY KEY, name text NOT NULL)",
            """
            CREATE TABLE items (
                id bigint PRIMARY KEY, title text NOT NULL, priority integer, done boolean NOT NULL DEFAULT false,
                due date, list_id integer REFERENCES lists (id))
            """,
            "INSERT INTO lists VALUES (1, 'Home'), (2, 'Work'), (3, 'Empty')",
            """
            INSERT INTO items VALUES
                (1, 'milk', 3, false, '2026-03-01', 1), (2, 'Bread', 1, true, NULL, 1),
                (3, 'report', 5, false, '2026-02-10', 2), (4, 'apples', NULL, false, '2026-04-01', NULL),
                (5, '''; DROP TABLE items; --', 2, true, NULL, 2)
            """,
        ]

        /// The ids of the items left, in order.
        static func ids(_ fixture: PostgreSQLFixture, _ table: String = "items") async throws -> [Int64] {
            try await fixture.database.fetchAll("SELECT id FROM \(table) ORDER BY id").map { row in
                guard case .integer(let id) = row.value(at: 0) else { return -1 }
                return id
            }
        }

        @Test("--yes deletes exactly the matching rows and prints how many; no match deletes nothing")
        func deletesMatchingRows() async throws {
            let fixture = try await PostgreSQLFixture.make(Self.schema)
            defer { Task { await fixture.close() } }
            let result = try await fixture.run(
                ["delete", "ITEMS", "--where", "priority >= 3 or priority is null", "--where", "not done", "--yes"])
            #expect(result.status == 0, "\(result.errors)")
            #expect(result.output == "Deleted 3 rows from \"items\".\n")
            #expect(try await Self.ids(fixture) == [2, 5])

            let hostile = try await fixture.run([
                "delete", "items", "--where", "title = '''; DROP TABLE items; --'", "-y",
            ])
            #expect(hostile.status == 0, "\(hostile.errors)")
            #expect(hostile.output == "Deleted 1 row from \"items\".\n")
            #expect(try await Self.ids(fixture) == [2])

            let none = try await fixture.run(["delete", "items", "--where", "due < '2000-01-01'", "--yes"])
            #expect(none.status == 0, "\(none.errors)")
            #expect(none.output == "No rows of \"items\" match; nothing deleted.\n")
            #expect(try await Self.ids(fixture) == [2])
        }

        @Test("Without a terminal and without --yes it only counts: exit 2, and nothing is deleted")
        func refusesWithoutConfirmation() async throws {
            let fixture = try await PostgreSQLFixture.make(Self.schema)
            defer { Task { await fixture.close() } }
            let result = try await fixture.run(["delete", "items", "--where", "done"])
            #expect(result.status == 2)
            #expect(
                result.errors
                    == "Error: refusing to delete 2 rows of \"items\" without confirmation: standard input is not a "
                    + "terminal; pass --yes to delete them\n")
            #expect(result.output.isEmpty)
            #expect(try await Self.ids(fixture) == [1, 2, 3, 4, 5])
        }

        @Test("A bad filter, an unknown column or table, or no --where exits 2 and deletes nothing")
        func usageErrors() async throws {
            let fixture = try await PostgreSQLFixture.make(Self.schema)
            defer { Task { await fixture.close() } }
            let cases: [([String], String)] = [
                (["delete", "items", "--where", "priority >=", "--yes"], "expected a column or a value after \">=\""),
                (
                    ["delete", "items", "--where", "titel = 'x'", "--yes"],
                    "no such column: \"titel\" in table \"items\"; did you mean \"title\"?"
                ),
                (
                    ["delete", "itemz", "--where", "id = 1", "--yes"],
                    "no such table: \"itemz\"; did you mean \"items\"?"
                ),
                (["delete", "items", "--where", "title = 3", "--yes"], "type mismatch"),
                (["delete", "items", "--where", "title glob 'm*'", "--yes"], "glob is not available on PostgreSQL"),
                (["delete", "items", "--yes"], "delete needs at least one --where"),
            ]
            for (arguments, message) in cases {
                let result = try await fixture.run(arguments)
                #expect(result.status == 2, "\(arguments)")
                #expect(result.errors.contains(message), "\(arguments): \(result.errors)")
                #expect(result.output.isEmpty, "\(arguments)")
            }
            #expect(try await Self.ids(fixture) == [1, 2, 3, 4, 5])
        }

        @Test("A row a foreign key still references exits 1 with the server's message, and nothing is deleted")
        func foreignKeyViolation() async throws {
            let fixture = try await PostgreSQLFixture.make(Self.schema)
            defer { Task { await fixture.close() } }
            // List 3 has no items and could go alone, but the transaction takes all or nothing.
            let result = try await fixture.run(["delete", "lists", "--where", "id in (1, 3)", "--yes"])
            #expect(result.status == 1)
            #expect(result.errors.contains("Error: PostgreSQL error 23503: "), "\(result.errors)")
            #expect(result.errors.contains("violates foreign key constraint \"items_list_id_fkey\" on table \"items\""))
            #expect(result.errors.hasSuffix("\n  nothing was deleted\n"))
            #expect(result.output.isEmpty)
            #expect(try await Self.ids(fixture, "lists") == [1, 2, 3])
            #expect(try await Self.ids(fixture) == [1, 2, 3, 4, 5])
        }

        @Test("A row committed while the delete waits for the table is not deleted: exactly the rows confirmed go")
        func deletesOnlyTheRowsItCounted() async throws {
            let fixture = try await PostgreSQLFixture.make([
                "CREATE TABLE dt (id integer PRIMARY KEY, tag text)",
                "INSERT INTO dt VALUES (1, 'old'), (2, 'old'), (3, 'new')",
            ])
            defer { Task { await fixture.close() } }
            let other = try await PostgreSQLDatabase(fixture.database.configuration)
            defer { Task { await other.close() } }
            // Another session inserts a matching row and holds the table until the delete waits
            // for it; then it commits.
            let delete = try await other.transaction { tx in
                try await tx.execute("INSERT INTO dt VALUES (4, 'old')")
                try await tx.execute("LOCK dt IN SHARE MODE")
                let delete = Task { try await fixture.run(["delete", "dt", "--where", "tag = 'old'", "--yes"]) }
                try await TestServer.untilWaiting(forLockOn: "dt", in: fixture.database)
                return delete
            }
            let result = try await delete.value
            #expect(result.status == 0, "\(result.errors)")
            #expect(result.output == "Deleted 2 rows from \"dt\".\n")
            #expect(try await Self.ids(fixture, "dt") == [3, 4])
        }
    }
#endif
