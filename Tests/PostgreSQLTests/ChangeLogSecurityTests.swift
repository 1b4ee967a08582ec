import Foundation
import LiveValueTesting
import Locking
import PostgreSQLTestServer
import Testing

@testable import PostgreSQL

/// The change notifications on a server shared with other roles: nothing a writer creates runs
/// with the installer's rights, the log shows no role a row it could not read from its table,
/// no reader can make another miss a change, and installing never makes another session's
/// statement fail or wait behind a table it does not write.
@Suite(.postgreSQLInstalled, .timeLimit(.minutes(2)))
struct ChangeLogSecurityTests {
    /// A new role's name, unique on the shared server.
    static func roleName(_ prefix: String) -> String {
        prefix + "_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
    }

    /// `admin` (the tests' superuser) on a new database, and a connection to it as each of
    /// `roles`, made with `LOGIN` and closed afterwards.
    static func withRoles(
        _ roles: [String], _ body: (_ admin: PostgreSQLDatabase, _ as: [PostgreSQLDatabase]) async throws -> Void
    ) async throws {
        let admin = try await TestServer.makeDatabase()
        var connections: [PostgreSQLDatabase] = []
        do {
            for role in roles {
                try await admin.execute("CREATE ROLE \(role) LOGIN")
                var configuration = admin.configuration
                configuration.user = role
                connections.append(try await PostgreSQLDatabase(configuration))
            }
            try await body(admin, connections)
        } catch {
            for connection in connections { await connection.close() }
            await admin.close()
            throw error
        }
        for connection in connections { await connection.close() }
        await admin.close()
    }

    @Test func aWritersCastToJSONRunsAsTheWriterNeverAsTheInstaller() async throws {
        let attacker = Self.roleName("attacker")
        try await Self.withRoles([attacker]) { admin, roles in
            let evil = roles[0]
            try await admin.execute("CREATE TABLE items(id INTEGER)")
            try await admin.installChangeNotifications(on: ["items"])
            try await admin.execute("GRANT CREATE ON SCHEMA public TO \(attacker)")
            // What row_to_json calls for a column of a type with a cast to json, as whoever
            // runs it.
            for statement in [
                "CREATE TYPE mood AS ENUM ('sad')",
                """
                CREATE FUNCTION mood_json(mood) RETURNS json LANGUAGE plpgsql AS $f$
                BEGIN
                    EXECUTE 'ALTER ROLE \(attacker) SUPERUSER';
                    RETURN '"sad"'::json;
                END
                $f$
                """,
                "CREATE CAST (mood AS json) WITH FUNCTION mood_json(mood)",
                "CREATE TABLE mine(m mood)",
                """
                CREATE TRIGGER live_query_changes_insert AFTER INSERT ON mine REFERENCING NEW TABLE AS live_query_new
                    FOR EACH STATEMENT EXECUTE FUNCTION live_query.live_query_notify_change()
                """,
            ] {
                try await evil.execute(statement)
            }
            // The cast runs as the attacker, who may not make itself a superuser: the insert fails.
            await #expect(throws: PostgreSQLError.self) { try await evil.execute("INSERT INTO mine VALUES ('sad')") }
            let superuser = try await admin.fetchOne(
                "SELECT rolsuper AS yes FROM pg_roles WHERE rolname = $1", [.text(attacker)])
            #expect(try superuser?["yes"] as Bool? == false)
        }
    }

    @Test func anEarlierVersionsTriggerFunctionNoLongerRunsAsItsOwner() async throws {
        try await TestServer.withDatabase { db in
            // Where earlier versions created it, as they did: running as its owner.
            try await db.execute(
                """
                CREATE FUNCTION public.live_query_notify_change() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
                AS $f$ BEGIN RETURN NULL; END $f$
                """)
            try await db.execute("CREATE TABLE items(id INTEGER)")
            try await db.installChangeNotifications(on: ["items"])
            let definers = try await db.fetchOne(
                "SELECT count(*) AS n FROM pg_proc WHERE proname = 'live_query_notify_change' AND prosecdef")
            #expect(try definers?["n"] == 0)
        }
    }

    @Test func theLogShowsARoleNoRowOrColumnItCouldNotSelect() async throws {
        let reader = Self.roleName("reader")
        try await Self.withRoles([reader]) { admin, roles in
            let db = roles[0]
            for statement in [
                "CREATE TABLE secrets(id INTEGER, owner TEXT, secret TEXT)",
                "ALTER TABLE secrets ENABLE ROW LEVEL SECURITY",
                "CREATE POLICY own ON secrets USING (owner = current_user)",
                "GRANT SELECT ON secrets TO \(reader)",
                "CREATE TABLE partly(id INTEGER, shown TEXT, hidden TEXT)",
                "GRANT SELECT (id, shown) ON partly TO \(reader)",
                "CREATE TABLE unseen(id INTEGER, word TEXT)",
                "CREATE TABLE open(id INTEGER, word TEXT)",
                "GRANT SELECT ON open TO \(reader)",
            ] {
                try await admin.execute(statement)
            }
            try await admin.installChangeNotifications(on: ["secrets", "partly", "unseen", "open"])
            try await admin.execute("INSERT INTO secrets VALUES (1, 'someone else', 'the-secret')")
            try await admin.execute("INSERT INTO partly VALUES (1, 'shown', 'the-hidden-column')")
            try await admin.execute("INSERT INTO unseen VALUES (1, 'the-unseen-word')")
            try await admin.execute("INSERT INTO open VALUES (1, 'the-open-word')")
            let reading = try await db.fetchAll("SELECT secret FROM secrets")
            #expect(reading.isEmpty, "row-level security hides the row from the reader")

            // The log itself is the owner's alone.
            for statement in ["SELECT * FROM live_query.changes", "DELETE FROM live_query.changes"] {
                let error = await #expect(throws: PostgreSQLError.self) { try await db.execute(statement) }
                #expect(error?.sqlState == "42501", "\(statement)")
            }
            // Its view: the records of the tables the reader may read, the rows only where it
            // may read all of them.
            let payloads = try await db.fetchAll(
                """
                SELECT split_part(payload, ' ', 1)::oid::regclass::text AS tables, payload
                FROM live_query.readable_changes ORDER BY id
                """
            ).map { (try $0["tables"] as String, try $0["payload"] as String) }
            #expect(payloads.map(\.0) == ["secrets", "partly", "open"])
            for (table, payload) in payloads where table != "open" {
                #expect(!payload.contains(" "), "\(table): the table alone, no row: \(payload)")
            }
            #expect(payloads.last?.1.contains("the-open-word") == true)
        }
    }

    @Test func noReaderCanMakeAnotherMissAChange() async throws {
        let reader = Self.roleName("reader")
        try await Self.withRoles([reader]) { admin, roles in
            let db = roles[0]
            try await admin.execute("CREATE TABLE items(id INTEGER)")
            try await admin.execute("GRANT SELECT ON items TO \(reader)")
            try await admin.installChangeNotifications(on: ["items"])
            try await admin.execute("INSERT INTO items VALUES (1)")
            let count = "SELECT count(*) AS n FROM live_query.changes"
            let before = try await admin.fetchOne(count)?["n"] as Int?
            #expect(before == 1)
            // The pruning function, which any role may call, deletes only records a minute old.
            try await db.execute("SELECT FROM live_query.prune_changes()")
            try await db.execute("SELECT FROM live_query.prune_changes()")
            #expect(try await admin.fetchOne(count)?["n"] as Int? == before)
            // Nor may a role add records of a table it cannot write.
            let oid =
                try #require(try await admin.fetchOne("SELECT 'items'::regclass::oid::int8 AS oid"))["oid"] as Int64
            let error = await #expect(throws: PostgreSQLError.self) {
                try await db.execute("INSERT INTO live_query.changes (payload) VALUES ($1)", [.text("\(oid)")])
            }
            #expect(error?.sqlState == "42501")
        }
    }

    @Test func aLiveValueOfARoleWithSelectOnlyFollowsChanges() async throws {
        let reader = Self.roleName("reader")
        try await Self.withRoles([reader]) { admin, roles in
            let db = roles[0]
            try await admin.execute("CREATE TABLE items(id INTEGER)")
            try await admin.execute("GRANT SELECT ON items TO \(reader)")
            try await admin.installChangeNotifications(on: ["items"])
            @SharedReader(.fetchAll("SELECT id FROM items ORDER BY id", database: db)) var ids: [Int]
            await db.liveEngine.source.untilListening()
            try await $ids.load()
            try await admin.execute("INSERT INTO items VALUES (1)")
            try await value(of: $ids) { $0 == [1] }
        }
    }

    @Test func aReinstallNeverMakesAnotherSessionsWriteFail() async throws {
        try await TestServer.withDatabase { db in
            try await db.execute("CREATE TABLE cw(id INTEGER)")
            try await db.installChangeNotifications(on: ["cw"])
            let other = try await PostgreSQLDatabase(db.configuration)
            let installer = try await PostgreSQLDatabase(db.configuration)
            do {
                // A statement in progress holds the table, and will write the log when it ends.
                try await other.transaction { tx in
                    try await tx.execute("LOCK TABLE cw IN ROW EXCLUSIVE MODE")
                    let pid = try #require(try await tx.fetchOne("SELECT pg_backend_pid() AS pid"))["pid"] as Int
                    let finished = Lock(false)
                    let install = Task {
                        try await installer.installChangeNotifications(on: ["cw"])
                        finished.withLock { $0 = true }
                    }
                    // The install ends, or waits behind this transaction.
                    try await TestServer.until("the install ends or waits") {
                        let waiting = try await db.fetchOne(
                            """
                            SELECT count(*) AS n FROM pg_locks AS l JOIN pg_stat_activity AS a USING (pid)
                            WHERE NOT l.granted AND a.datname = current_database() AND l.pid <> $1
                            """, [.integer(Int64(pid))])
                        return try waiting?["n"] as Int? ?? 0 > 0 || finished.withLock { $0 }
                    }
                    try await tx.execute("INSERT INTO cw VALUES (1)")
                    try await install.value
                }
                #expect(try await db.fetchOne("SELECT count(*) AS n FROM cw")?["n"] as Int? == 1)
                await other.close()
                await installer.close()
            } catch {
                await other.close()
                await installer.close()
                throw error
            }
        }
    }

    @Test func anInstallWaitingForOneTableNeverHoldsAnother() async throws {
        try await TestServer.withDatabase { db in
            try await db.execute("CREATE TABLE a(id INTEGER)")
            try await db.execute("CREATE TABLE b(id INTEGER)")
            let holder = try await PostgreSQLDatabase(db.configuration)
            let writer = try await PostgreSQLDatabase(db.configuration)
            do {
                try await holder.transaction { tx in
                    try await tx.execute("LOCK TABLE a IN ROW EXCLUSIVE MODE")
                    // The install, while this transaction holds a.
                    let install = Task { try await db.installChangeNotifications(on: ["b", "a"]) }
                    try await TestServer.untilWaiting(forLockOn: "a", in: writer)
                    // While the install waits for a, b takes writes, and its triggers record them.
                    try await writer.execute("INSERT INTO b VALUES (1)")
                    let recorded = try await writer.fetchOne(
                        """
                        SELECT count(*) AS n FROM live_query.changes
                        WHERE split_part(payload, ' ', 1) = 'b'::regclass::oid::text
                        """)
                    #expect(try recorded?["n"] as Int? == 1)
                    return install
                }.value
                // Once the table is free, the install ends.
                let triggers = "SELECT count(*) AS n FROM pg_trigger WHERE tgrelid = 'a'::regclass AND NOT tgisinternal"
                #expect(try await writer.fetchOne(triggers)?["n"] as Int? == 4)
                await holder.close()
                await writer.close()
            } catch {
                await holder.close()
                await writer.close()
                throw error
            }
        }
    }

    @Test func uninstallingRemovesATablesTriggersThenEverything() async throws {
        try await TestServer.withDatabase { db in
            try await db.execute("CREATE TABLE a(id INTEGER)")
            try await db.execute("CREATE TABLE b(id INTEGER)")
            try await db.installChangeNotifications(on: ["a", "b"])
            let triggers = "SELECT count(*) AS n FROM pg_trigger WHERE NOT tgisinternal"
            #expect(try await db.fetchOne(triggers)?["n"] as Int? == 8)
            try await db.uninstallChangeNotifications(on: ["a"])
            try await db.uninstallChangeNotifications(on: ["a"])
            #expect(try await db.fetchOne(triggers)?["n"] as Int? == 4)
            try await db.execute("INSERT INTO b VALUES (1)")
            try await db.uninstallChangeNotifications()
            #expect(try await db.fetchOne(triggers)?["n"] as Int? == 0)
            let left = try await db.fetchOne(
                """
                SELECT (SELECT count(*) FROM pg_namespace WHERE nspname = 'live_query')
                    + (SELECT count(*) FROM pg_proc WHERE proname LIKE 'live_query%')
                    + (SELECT count(*) FROM pg_event_trigger WHERE evtname LIKE 'live_query%') AS n
                """)
            #expect(try left?["n"] as Int? == 0)
            #expect(try await db.followsSchemaChanges() == false)
            // Writes go on, recorded nowhere; installing again starts afresh.
            try await db.execute("INSERT INTO b VALUES (2)")
            try await db.installChangeNotifications(on: ["b"])
            try await db.execute("INSERT INTO b VALUES (3)")
            #expect(try await db.fetchOne("SELECT count(*) AS n FROM live_query.changes")?["n"] as Int? == 1)
        }
    }

    @Test func writersPruneTheLogWhileNoInstanceListens() async throws {
        try await TestServer.withDatabase { db in
            try await db.execute("CREATE TABLE items(id INTEGER)")
            try await db.installChangeNotifications(on: ["items"])
            try await db.execute("INSERT INTO items VALUES (0)")
            // As if the oldest transaction in progress had been sampled a while ago, past this
            // record's: it is old enough to go. (Other tests' transactions on the shared server
            // would hold back a real sample.)
            try await db.execute(
                """
                INSERT INTO live_query.prune_horizons
                SELECT now() - interval '10 minutes', (max(xid)::text::int8 + 1)::text::xid8 FROM live_query.changes
                """)
            let first = "SELECT count(*) AS n FROM live_query.changes WHERE payload LIKE '%\"id\":0%'"
            #expect(try await db.fetchOne(first)?["n"] as Int? == 1)
            // One statement in 1,000 prunes, at random: the record goes within a few thousand.
            var statements = 0
            while try await db.fetchOne(first)?["n"] as Int? == 1 {
                statements += 500
                try #require(statements <= 30_000, "no writer pruned the log")
                try await db.execute("DO $$ BEGIN FOR i IN 1..500 LOOP INSERT INTO items VALUES (1); END LOOP; END $$")
            }
        }
    }
}
