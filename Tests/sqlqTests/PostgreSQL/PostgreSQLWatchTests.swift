#if PostgreSQL
    import Foundation
    import PostgreSQL
    import PostgreSQLTestServer
    import Testing

    @Suite("sqlq watch on PostgreSQL", .postgreSQLInstalled, .onProcessThreads)
    struct PostgreSQLWatchTests {
        static let schema = [
            "CREATE TABLE lists (id integer PRIMARY KEY, name text NOT NULL)",
            """
            CREATE TABLE items (
                id bigint PRIMARY KEY, title text NOT NULL, done boolean NOT NULL DEFAULT false, price numeric,
                list_id integer REFERENCES lists (id))
            """,
            "CREATE VIEW open_items AS SELECT id, title FROM items WHERE NOT done",
            "INSERT INTO lists VALUES (1, 'Home'), (2, 'Work')",
            """
            INSERT INTO items VALUES
                (1, 'milk', false, 2.50, 1), (2, 'bread', true, NULL, 1), (3, 'report', false, 10, 2)
            """,
        ]

        /// A database of `schema`, its tables given change notifications by the PostgreSQL module.
        static func installed() async throws -> PostgreSQLFixture {
            let fixture = try await PostgreSQLFixture.make(schema)
            try await fixture.database.installChangeNotifications(on: ["items", "lists"])
            return fixture
        }

        /// `sqlq watch` with `arguments` on the fixture's database, running while the test talks to it.
        static func watch(_ arguments: [String], _ fixture: PostgreSQLFixture) throws -> RunningCommand {
            try RunningCommand(["watch"] + arguments + ["--db", fixture.url])
        }

        @Test("The first result shows; another connection's commit that changes it is redrawn; Ctrl-C exits with 0")
        func commitOfAnotherConnection() async throws {
            let fixture = try await Self.installed()
            defer { Task { await fixture.close() } }
            let watch = try Self.watch(
                ["items", "--where", "list_id = 1", "--sort", "id", "--columns", "id,title,done", "--format", "tsv"],
                fixture)
            try await watch.output.waitFor("-- 2 rows, last change at ")
            #expect(watch.output.text.hasPrefix("id\ttitle\tdone\n1\tmilk\tf\n2\tbread\tt\n-- 2 rows, last change at "))

            try await fixture.database.execute("UPDATE items SET title = 'oat milk' WHERE id = 1")
            try await watch.output.waitFor("1\toat milk\tf\n2\tbread\tt\n-- 2 rows, last change at ")
            #expect(!watch.output.text.contains("\u{1B}"))

            watch.interrupt()
            #expect(try await watch.exitStatus() == 0)
        }

        @Test("A commit that cannot change the result (another row, another table) draws nothing")
        func unrelatedCommits() async throws {
            let fixture = try await Self.installed()
            defer { Task { await fixture.close() } }
            let watch = try Self.watch(
                ["items", "--where", "list_id = 1", "--sort", "id", "--columns", "id,title", "--format", "tsv"],
                fixture)
            try await watch.output.waitFor("-- 2 rows, last change at ")

            try await fixture.database.execute("UPDATE items SET title = 'annual report' WHERE id = 3")
            try await fixture.database.execute("UPDATE lists SET name = 'Office' WHERE id = 2")
            // The commit that changes the result comes after both: had either drawn, its result
            // would show between the first and this one.
            try await fixture.database.execute("INSERT INTO items (id, title, list_id) VALUES (4, 'eggs', 1)")
            try await watch.output.waitFor("-- 3 rows, last change at ")
            let blocks = watch.output.text.components(separatedBy: "\n-- ")
            try #require(blocks.count == 3, "\(watch.output.text)")
            #expect(blocks[0] == "id\ttitle\n1\tmilk\n2\tbread")
            #expect(blocks[1].hasSuffix("\nid\ttitle\n1\tmilk\n2\tbread\n4\teggs"))

            watch.interrupt()
            #expect(try await watch.exitStatus() == 0)
        }

        @Test("--count is redrawn as the count changes; cells are shown as query shows them")
        func countAndCells() async throws {
            let fixture = try await Self.installed()
            defer { Task { await fixture.close() } }
            let count = try Self.watch(["items", "--where", "not done", "--count"], fixture)
            try await count.output.waitFor("-- last change at ")
            #expect(count.output.text.hasPrefix("2\n-- last change at "))

            let json = try Self.watch(["items", "--where", "id = 1", "--format", "json"], fixture)
            let query = try await fixture.run(["query", "items", "--where", "id = 1", "--format", "json"])
            try await json.output.waitFor("-- 1 row, last change at ")
            #expect(json.output.text.hasPrefix(query.output))
            #expect(query.output.contains(#""done":false,"price":2.5"#))

            try await fixture.database.execute("UPDATE items SET done = true WHERE id = 1")
            try await count.output.waitFor("1\n-- last change at ")
            try await json.output.waitFor(#""done":true"#)

            for watch in [count, json] {
                watch.interrupt()
                #expect(try await watch.exitStatus() == 0)
            }
        }

        @Test("A view is live when a table it reads has the notifications")
        func view() async throws {
            let fixture = try await Self.installed()
            defer { Task { await fixture.close() } }
            let watch = try Self.watch(["open_items", "--sort", "id", "--format", "csv"], fixture)
            try await watch.output.waitFor("-- 2 rows, last change at ")
            try await fixture.database.execute("UPDATE items SET done = false WHERE id = 2")
            try await watch.output.waitFor("id,title\r\n1,milk\r\n2,bread\r\n3,report\r\n-- 3 rows, last change at ")

            watch.interrupt()
            #expect(try await watch.exitStatus() == 0)
        }

        @Test("Without change notifications, watch exits 1 naming the command; install-notifications installs them")
        func install() async throws {
            let fixture = try await PostgreSQLFixture.make(Self.schema)
            defer { Task { await fixture.close() } }
            let refused = try await fixture.run(["watch", "items", "--count"])
            #expect(refused.status == 1)
            #expect(refused.output == "")
            #expect(
                refused.errors
                    == "Error: \"items\" has no change notifications installed, so watch would never see it change; "
                    + "install them with: sqlq install-notifications items --db '\(fixture.url)'\n")
            let view = try await fixture.run(["watch", "open_items"])
            #expect(view.status == 1)
            #expect(view.errors.contains("\"items\" has no change notifications installed"), "\(view.errors)")
            #expect(view.errors.contains("install them with: sqlq install-notifications items --db"))

            let installed = try await fixture.run(["install-notifications", "ITEMS", "lists"])
            #expect(installed.status == 0, "\(installed.errors)")
            #expect(
                installed.output
                    == "installed change notifications on \"public\".\"items\"\n"
                    + "installed change notifications on \"public\".\"lists\"\n")
            let again = try await fixture.run(["install-notifications", "items"])
            #expect(again.status == 0, "\(again.errors)")

            let watch = try Self.watch(["items", "--count"], fixture)
            try await watch.output.waitFor("3\n-- last change at ")
            try await fixture.database.execute("DELETE FROM items WHERE id = 3")
            try await watch.output.waitFor("2\n-- last change at ")
            watch.interrupt()
            #expect(try await watch.exitStatus() == 0)
        }

        @Test("Every table read must have the notifications: a view's, a nested view's, a dotted path's parent's")
        func everyTableRead() async throws {
            let fixture = try await PostgreSQLFixture.make(
                Self.schema + [
                    "CREATE VIEW listed AS SELECT i.id, i.title, l.name FROM items AS i JOIN lists AS l ON l.id = i.list_id",
                    "CREATE VIEW listed_again AS SELECT * FROM listed",
                    "CREATE SCHEMA archive",
                    "CREATE TABLE archive.notes (id integer PRIMARY KEY, body text)",
                    "CREATE VIEW notes AS SELECT n.id, n.body, i.title FROM archive.notes AS n JOIN items AS i ON i.id = n.id",
                ])
            defer { Task { await fixture.close() } }
            try await fixture.database.installChangeNotifications(on: ["items"])
            let message =
                "Error: \"lists\" has no change notifications installed, so watch would never see it change; "
                + "install them with: sqlq install-notifications lists --db '\(fixture.url)'\n"
            for arguments in [["listed"], ["listed_again", "--count"], ["items", "--where", "list_id.name = 'Home'"]] {
                let refused = try await fixture.run(["watch"] + arguments)
                #expect(refused.status == 1, "\(arguments)")
                #expect(refused.errors == message, "\(arguments)")
            }
            // A table outside the search path is named with its schema, as install-notifications takes it.
            let outside = try await fixture.run(["watch", "notes"])
            #expect(outside.status == 1)
            #expect(
                outside.errors
                    == "Error: \"archive\".\"notes\" has no change notifications installed, so watch would never see "
                    + "it change; install them with: sqlq install-notifications archive.notes --db '\(fixture.url)'\n")
            let installed = try await fixture.run(["install-notifications", "archive.notes", "lists"])
            #expect(installed.status == 0, "\(installed.errors)")
            #expect(
                installed.output
                    == "installed change notifications on \"archive\".\"notes\"\n"
                    + "installed change notifications on \"public\".\"lists\"\n")

            // A commit to the parent table alone is followed.
            let watch = try Self.watch(["items", "--where", "list_id.name = 'Home'", "--count"], fixture)
            try await watch.output.waitFor("2\n-- last change at ")
            try await fixture.database.execute("UPDATE lists SET name = 'House' WHERE id = 1")
            try await watch.output.waitFor("0\n-- last change at ")
            watch.interrupt()
            #expect(try await watch.exitStatus() == 0)
        }

        @Test("install-notifications: an unknown table or a view is a usage error, the server's refusal exits 1")
        func installErrors() async throws {
            // Roles are the server's, shared by every test's database: a name of this test's own.
            let role = "watcher_" + UUID().uuidString.prefix(8).lowercased()
            let fixture = try await PostgreSQLFixture.make(Self.schema + ["CREATE ROLE \(role) LOGIN"])
            defer { Task { await fixture.close() } }
            let unknown = try await fixture.run(["install-notifications", "itmes"])
            #expect(unknown.status == 2)
            #expect(unknown.errors.contains("items"), "\(unknown.errors)")
            let view = try await fixture.run(["install-notifications", "open_items"])
            #expect(view.status == 2)
            #expect(
                view.errors == "Error: \"open_items\" is a view: change notifications go on the tables it reads\n")
            let none = try await fixture.run(["install-notifications"])
            #expect(none.status == 2)

            // A role that owns neither the tables nor the right to create the log's schema.
            let denied = try await TestServer.sqlq([
                "install-notifications", "items", "--db", fixture.url + "&user=" + role,
            ])
            #expect(denied.status == 1)
            #expect(denied.errors.hasPrefix("Error: "), "\(denied.errors)")
            #expect(denied.errors.contains("permission denied"), "\(denied.errors)")
            let triggers = try await fixture.database.fetchOne(
                "SELECT count(*) AS n FROM pg_catalog.pg_trigger WHERE NOT tgisinternal")
            #expect(try #require(triggers)["n"] as Int == 0)
        }

        @Test("uninstall-notifications removes a table's, then with --all everything; watch then refuses the table")
        func uninstall() async throws {
            let fixture = try await PostgreSQLFixture.make(Self.schema)
            defer { Task { await fixture.close() } }
            let installed = try await fixture.run(["install-notifications", "items", "lists"])
            #expect(installed.status == 0, "\(installed.errors)")
            let removed = try await fixture.run(["uninstall-notifications", "items"])
            #expect(removed.status == 0, "\(removed.errors)")
            #expect(removed.output == "removed the change notifications of \"public\".\"items\"\n")
            let refused = try await fixture.run(["watch", "items", "--count"])
            #expect(refused.status == 1)
            #expect(refused.errors.contains("\"items\" has no change notifications installed"), "\(refused.errors)")
            let all = try await fixture.run(["uninstall-notifications", "--all"])
            #expect(all.status == 0, "\(all.errors)")
            #expect(all.output == "removed every change notification of the database, and the schema live_query\n")
            let left = try await fixture.database.fetchOne(
                "SELECT count(*) AS n FROM pg_namespace WHERE nspname = 'live_query'")
            #expect(try left?["n"] as Int? == 0)
            for arguments in [["uninstall-notifications"], ["uninstall-notifications", "items", "--all"]] {
                let usage = try await fixture.run(arguments)
                #expect(usage.status == 2, "\(arguments)")
            }
        }

        @Test("install-notifications on an SQLite file is a usage error")
        func installOnSQLite() async throws {
            let database = try TestDatabase.with("CREATE TABLE tasks(id INTEGER PRIMARY KEY, title TEXT);")
            let result = try await TestServer.sqlq(["install-notifications", "tasks", "--db", database.path])
            #expect(result.status == 2)
            #expect(
                result.errors
                    == "Error: install-notifications is for PostgreSQL (--db postgresql://…): an SQLite file needs "
                    + "nothing installed, watch sees every commit to it\n")
        }
    }
#endif
