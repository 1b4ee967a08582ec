#if PostgreSQL
    import Foundation
    import PostgreSQL
    import PostgreSQLTestServer
    import Testing

    /// `watch` on PostgreSQL follows what SQLite's watch follows (a column added or renamed, a
    /// partitioned table), and says so when it cannot follow: a table dropped and created again
    /// without notifications, a role refused the change log, a query whose plan calls a function,
    /// a database whose schema changes are not notified.
    @Suite("sqlq watch on PostgreSQL: schema changes, partitions, refusals", .postgreSQLInstalled, .onProcessThreads)
    struct PostgreSQLWatchFollowingTests {
        @Test("A column added shows at once; after a rename the result and later inserts show, never a failed refresh")
        func columnsAddedAndRenamed() async throws {
            let fixture = try await PostgreSQLWatchTests.installed()
            defer { Task { await fixture.close() } }
            let watch = try PostgreSQLWatchTests.watch(
                ["items", "--where", "list_id = 1", "--sort", "id", "--format", "tsv"], fixture)
            try await watch.output.waitFor("-- 2 rows, last change at ")
            try await fixture.database.execute("ALTER TABLE items ADD COLUMN note text DEFAULT 'n'")
            try await watch.output.waitFor("id\ttitle\tdone\tprice\tlist_id\tnote\n1\tmilk\tf\t2.50\t1\tn\n")
            try await fixture.database.execute("ALTER TABLE items RENAME COLUMN title TO name")
            try await watch.output.waitFor("id\tname\tdone\tprice\tlist_id\tnote\n")
            try await fixture.database.execute("INSERT INTO items (id, name, list_id) VALUES (4, 'eggs', 1)")
            try await watch.output.waitFor("4\teggs\tf\t\\N\t1\tn\n-- 3 rows, last change at ")
            #expect(!watch.output.text.contains("failed"), "\(watch.output.text)")
            watch.interrupt()
            #expect(try await watch.exitStatus() == 0)
        }

        @Test("A table dropped and created again without notifications is reported, and followed once installed")
        func droppedAndCreatedAgain() async throws {
            let fixture = try await PostgreSQLWatchTests.installed()
            defer { Task { await fixture.close() } }
            let watch = try PostgreSQLWatchTests.watch(["items", "--count"], fixture)
            try await watch.output.waitFor("3\n-- last change at ")
            try await fixture.database.execute("DROP TABLE items CASCADE")
            try await fixture.database.execute("CREATE TABLE items (id bigint PRIMARY KEY, title text)")
            try await watch.output.waitFor("has no change notifications, or they are disabled")
            // sqlq's own command, not the Swift API's, in the status line.
            try await watch.output.waitFor("install them with: sqlq install-notifications public.items")
            #expect(!watch.output.text.contains("installChangeNotifications"), "\(watch.output.text)")
            let installed = try await fixture.run(["install-notifications", "items"])
            #expect(installed.status == 0, "\(installed.errors)")
            try await fixture.database.execute("INSERT INTO items VALUES (1, 'new')")
            try await watch.output.waitFor("\n1\n-- last change at ")
            watch.interrupt()
            #expect(try await watch.exitStatus() == 0)
        }

        @Test("A partitioned table: install-notifications reaches its partitions, and writes through it are shown")
        func partitions() async throws {
            let fixture = try await PostgreSQLFixture.make([
                "CREATE TABLE measures (id integer, region text) PARTITION BY LIST (region)",
                "CREATE TABLE measures_north PARTITION OF measures FOR VALUES IN ('north')",
                "CREATE TABLE measures_south PARTITION OF measures FOR VALUES IN ('south')",
                "INSERT INTO measures VALUES (1, 'north')",
            ])
            defer { Task { await fixture.close() } }
            let installed = try await fixture.run(["install-notifications", "measures"])
            #expect(installed.status == 0, "\(installed.errors)")
            let watch = try PostgreSQLWatchTests.watch(["measures", "--sort", "id", "--format", "tsv"], fixture)
            try await watch.output.waitFor("1\tnorth\n-- 1 row, last change at ")
            try await fixture.database.execute("INSERT INTO measures VALUES (2, 'south')")
            try await watch.output.waitFor("1\tnorth\n2\tsouth\n-- 2 rows, last change at ")
            try await fixture.database.execute("UPDATE measures SET region = 'south' WHERE id = 1")
            try await watch.output.waitFor("1\tsouth\n2\tsouth\n-- 2 rows, last change at ")
            try await fixture.database.execute("INSERT INTO measures_north VALUES (3, 'north')")
            try await watch.output.waitFor("2\tsouth\n3\tnorth\n-- 3 rows, last change at ")
            watch.interrupt()
            #expect(try await watch.exitStatus() == 0)
        }

        @Test("A view whose plan calls a function is refused, since what it reads cannot be known")
        func functionScan() async throws {
            let fixture = try await PostgreSQLFixture.make(
                PostgreSQLWatchTests.schema + [
                    "CREATE TABLE hidden (id integer)",
                    """
                    CREATE FUNCTION hidden_rows() RETURNS SETOF hidden LANGUAGE plpgsql
                    AS $$ BEGIN RETURN QUERY SELECT * FROM hidden; END $$
                    """,
                    "CREATE VIEW through_function AS SELECT * FROM hidden_rows()",
                ])
            defer { Task { await fixture.close() } }
            try await fixture.database.installChangeNotifications(on: ["items", "lists"])
            let refused = try await fixture.run(["watch", "through_function"])
            #expect(refused.status == 1)
            #expect(refused.output == "")
            #expect(refused.errors.contains("calls a function or reads a foreign table"), "\(refused.errors)")
        }

        @Test("A view that calls a function of the database's own, directly or through a view, is refused")
        func viewCallingAFunction() async throws {
            let fixture = try await PostgreSQLFixture.make(
                PostgreSQLWatchTests.schema + [
                    "CREATE TABLE hidden (id integer)", "CREATE TABLE t (id integer)", "INSERT INTO t VALUES (1)",
                    """
                    CREATE FUNCTION h() RETURNS bigint LANGUAGE plpgsql
                    AS $$ BEGIN RETURN (SELECT count(*) FROM hidden); END $$
                    """,
                    "CREATE VIEW vh AS SELECT id, h() AS y FROM t",
                    "CREATE VIEW vw AS SELECT id FROM t WHERE h() >= 0",
                    "CREATE VIEW vv AS SELECT id FROM (SELECT * FROM vh) AS inner_view",
                    "CREATE VIEW vb AS SELECT id, lower('A') AS l, now() IS NOT NULL AS n FROM t",
                ])
            defer { Task { await fixture.close() } }
            try await fixture.database.installChangeNotifications(on: ["items", "lists", "hidden", "t"])
            for view in ["vh", "vw", "vv"] {
                let url = fixture.url
                // Bounded: a watch that is not refused runs until it is stopped.
                let refused = try await TestServer.offPool {
                    try BackgroundCommand(["watch", view, "--db", url]).wait(limit: 30)
                }
                #expect(refused.status == 1, "\(view): \(refused.errors)")
                #expect(refused.output == "", "\(view)")
                #expect(refused.errors.contains("calls a function that is not built in (h())"), "\(refused.errors)")
            }
            // Built-in functions read no table, so a view that calls only those is watched.
            let watch = try PostgreSQLWatchTests.watch(["vb", "--format", "tsv"], fixture)
            try await watch.output.waitFor("id\tl\tn\n1\ta\tt\n-- 1 row, last change at ")
            watch.interrupt()
            #expect(try await watch.exitStatus() == 0)
        }

        @Test("A table locked past --timeout fails watch with the lock's words, before anything is drawn")
        func lockedTable() async throws {
            let fixture = try await PostgreSQLWatchTests.installed()
            defer { Task { await fixture.close() } }
            let url = fixture.url
            let holder = try await PostgreSQLDatabase(fixture.database.configuration)
            let result = try await holder.transaction { tx in
                try await tx.execute("LOCK items IN ACCESS EXCLUSIVE MODE")
                return try await TestServer.offPool {
                    try BackgroundCommand(["watch", "items", "--timeout", "1", "--db", url]).wait(limit: 30)
                }
            }
            await holder.close()
            #expect(result.status == 1, "\(result.errors)")
            #expect(result.output == "")
            #expect(
                result.errors.hasPrefix(
                    "Error: another session held a lock that this command needs (on a table or rows it reads or "
                        + "writes) for longer than --timeout (1 s)"),
                "\(result.errors)")
        }

        @Test("A role refused the change log is told so before anything is drawn")
        func roleRefusedTheLog() async throws {
            let role = "watcher_" + UUID().uuidString.prefix(8).lowercased()
            let fixture = try await PostgreSQLWatchTests.installed()
            defer { Task { await fixture.close() } }
            for statement in [
                "CREATE ROLE \(role) LOGIN", "GRANT SELECT ON items TO \(role)",
                "REVOKE SELECT ON \(PostgreSQLDatabase.readableChangeLog) FROM PUBLIC",
            ] {
                try await fixture.database.execute(statement)
            }
            let refused = try await TestServer.sqlq([
                "watch", "items", "--count", "--db", fixture.url + "&user=" + role,
            ])
            #expect(refused.status == 1)
            #expect(refused.output == "")
            #expect(refused.errors.contains("may not read the change log"), "\(refused.errors)")
            // Read-only, with the grants an install gives every role, it watches.
            try await fixture.database.execute("GRANT SELECT ON \(PostgreSQLDatabase.readableChangeLog) TO PUBLIC")
            let watch = try RunningCommand(["watch", "items", "--count", "--db", fixture.url + "&user=" + role])
            try await watch.output.waitFor("3\n-- last change at ")
            try await fixture.database.execute("DELETE FROM items WHERE id = 3")
            try await watch.output.waitFor("2\n-- last change at ")
            watch.interrupt()
            #expect(try await watch.exitStatus() == 0)
        }

        @Test("Without the event triggers of schema changes, watch warns that it follows them only at the next write")
        func schemaChangesNotFollowed() async throws {
            let fixture = try await PostgreSQLWatchTests.installed()
            defer { Task { await fixture.close() } }
            try await fixture.database.execute("DROP EVENT TRIGGER live_query_schema_changes")
            let watch = try PostgreSQLWatchTests.watch(["items", "--count"], fixture)
            try await watch.output.waitFor("3\n-- last change at ")
            try await #require(watch.errors).waitFor(
                "warning: this database's change notifications were installed without")
            watch.interrupt()
            #expect(try await watch.exitStatus() == 0)
        }
    }
#endif
