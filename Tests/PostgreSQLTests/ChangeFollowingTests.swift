import Foundation
import LiveValueTesting
import PostgreSQLTestServer
import Testing

@testable import PostgreSQL

/// Live values that cannot follow their tables' changes say so (`loadError`), never showing an
/// old value as current: a role refused the change log, a table without notifications (dropped
/// and created again, its triggers disabled); and the changes they can follow reach them however
/// they are written: through a partitioned table or into one of its partitions, or by a session
/// that replays changes (`session_replication_role = replica`).
@Suite(.postgreSQLInstalled, .timeLimit(.minutes(2)))
struct ChangeFollowingTests {
    /// Waits until `reader` fails with a ``PostgreSQLError`` whose message contains `text`.
    static func failure<V: Sendable>(of reader: SharedReader<V>, containing text: String) async throws {
        do {
            try await eventually(reader) { reader in
                (reader.loadError as? PostgreSQLError)?.message.contains(text) == true
            }
        } catch let error as TimedOut {
            throw TimedOut(
                description: "never failed with \"\(text)\"; its error: \(reader.loadError.map { "\($0)" } ?? "none") "
                    + "(\(error))")
        }
    }

    @Test func aRoleRefusedTheChangeLogIsToldSoUntilItMayReadIt() async throws {
        let reader = ChangeLogSecurityTests.roleName("reader")
        try await ChangeLogSecurityTests.withRoles([reader]) { admin, roles in
            let db = roles[0]
            try await admin.execute("CREATE TABLE items(id INTEGER)")
            try await admin.execute("GRANT SELECT ON items TO \(reader)")
            try await admin.installChangeNotifications(on: ["items"])
            try await admin.execute("REVOKE SELECT ON \(PostgreSQLDatabase.readableChangeLog) FROM PUBLIC")
            @SharedReader(.fetchAll("SELECT id FROM items ORDER BY id", database: db)) var ids: [Int]
            try await Self.failure(of: $ids, containing: "cannot follow its changes")
            let message = try #require(($ids.loadError as? PostgreSQLError)?.message)
            #expect(message.contains("SELECT on \(PostgreSQLDatabase.readableChangeLog)"), "\(message)")

            try await admin.execute("GRANT SELECT ON \(PostgreSQLDatabase.readableChangeLog) TO PUBLIC")
            try await eventually($ids) { $0.loadError == nil }
            try await admin.execute("INSERT INTO items VALUES (1)")
            try await value(of: $ids) { $0 == [1] }
        }
    }

    @Test func aPartitionedTableIsFollowedThroughItselfAndThroughEachPartition() async throws {
        try await TestServer.withDatabase { db in
            for statement in [
                "CREATE TABLE measures(id INTEGER, region TEXT) PARTITION BY LIST (region)",
                "CREATE TABLE measures_north PARTITION OF measures FOR VALUES IN ('north')",
                "CREATE TABLE measures_south PARTITION OF measures FOR VALUES IN ('south')",
            ] {
                try await db.execute(statement)
            }
            // The install of the partitioned table reaches its partitions.
            try await db.installChangeNotifications(on: ["measures"])
            let missing = try await db.tablesWithoutChangeNotifications(readBy: "SELECT * FROM measures")
            #expect(missing?.isEmpty == true)

            @SharedReader(.fetchAll("SELECT id, region FROM measures ORDER BY id", database: db))
            var rows: [Measure]
            @SharedReader(.fetchAll("SELECT id FROM measures_north ORDER BY id", database: db)) var north: [Int]
            await db.liveEngine.source.untilListening()
            try await $rows.load()
            try await $north.load()
            try await db.execute("INSERT INTO measures VALUES (1, 'north')")
            try await value(of: $rows) { $0 == [Measure(id: 1, region: "north")] }
            try await value(of: $north) { $0 == [1] }
            // A row moved to another partition, through the partitioned table.
            try await db.execute("UPDATE measures SET region = 'south' WHERE id = 1")
            try await value(of: $rows) { $0 == [Measure(id: 1, region: "south")] }
            try await value(of: $north) { $0 == [] }
            // Straight into a partition.
            try await db.execute("INSERT INTO measures_north VALUES (2, 'north')")
            try await value(of: $rows) { $0 == [Measure(id: 1, region: "south"), Measure(id: 2, region: "north")] }
            try await value(of: $north) { $0 == [2] }
        }
    }

    @Test func aTableDroppedAndCreatedAgainWithoutNotificationsIsReported() async throws {
        try await TestServer.withDatabase { db in
            try await db.execute("CREATE TABLE items(id INTEGER)")
            try await db.installChangeNotifications(on: ["items"])
            #expect(try await db.followsSchemaChanges())
            @SharedReader(.fetchAll("SELECT id FROM items ORDER BY id", database: db)) var ids: [Int]
            await db.liveEngine.source.untilListening()
            try await $ids.load()

            try await db.execute("DROP TABLE items")
            try await db.execute("CREATE TABLE items(id INTEGER)")
            try await Self.failure(of: $ids, containing: "has no change notifications")
            try await db.installChangeNotifications(on: ["items"])
            try await eventually($ids) { $0.loadError == nil }
            try await db.execute("INSERT INTO items VALUES (7)")
            try await value(of: $ids) { $0 == [7] }
        }
    }

    @Test func aFetchThatWaitedTooLongForALockIsRetriedWithoutAnotherCommit() async throws {
        try await TestServer.withDatabase { db in
            try await db.execute("CREATE TABLE t1(id INTEGER)")
            try await db.execute("CREATE TABLE t2(id INTEGER)")
            try await db.installChangeNotifications(on: ["t1", "t2"])
            var configuration = db.configuration
            configuration.lockTimeout = .milliseconds(100)
            let reader = try await PostgreSQLDatabase(configuration)
            let holder = try await PostgreSQLDatabase(db.configuration)
            do {
                @SharedReader(.fetchAll("SELECT id FROM t1 UNION ALL SELECT id FROM t2 ORDER BY 1", database: reader))
                var ids: [Int]
                await reader.liveEngine.source.untilListening()
                try await $ids.load()
                try await holder.transaction { tx in
                    try await tx.execute("LOCK t2 IN ACCESS EXCLUSIVE MODE")
                    try await db.execute("INSERT INTO t1 VALUES (1)")
                    try await Self.failure(of: $ids, containing: "lock timeout")
                }
                // No commit comes after the lock's release: the failed fetch is tried again.
                try await value(of: $ids) { $0 == [1] }
                try await eventually($ids) { $0.loadError == nil }
            } catch {
                await reader.close()
                await holder.close()
                throw error
            }
            await reader.close()
            await holder.close()
        }
    }

    @Test func aReplicaSessionsWritesAreFollowedAndDisabledTriggersReported() async throws {
        try await TestServer.withDatabase { db in
            try await db.execute("CREATE TABLE items(id INTEGER)")
            try await db.installChangeNotifications(on: ["items"])
            @SharedReader(.fetchAll("SELECT id FROM items ORDER BY id", database: db)) var ids: [Int]
            await db.liveEngine.source.untilListening()
            try await $ids.load()
            // What a logical-replication subscriber's apply, or pg_restore, runs as.
            try await db.transaction { tx in
                try await tx.execute("SET LOCAL session_replication_role = replica")
                try await tx.execute("INSERT INTO items VALUES (1)")
            }
            try await value(of: $ids) { $0 == [1] }

            try await db.execute("ALTER TABLE items DISABLE TRIGGER live_query_changes_insert")
            try await Self.failure(of: $ids, containing: "or they are disabled")
            let missing = try await db.tablesWithoutChangeNotifications(readBy: "SELECT * FROM items")
            #expect(missing?.map(\.table) == ["items"])
            // A reinstall enables them again.
            try await db.installChangeNotifications(on: ["items"])
            try await eventually($ids) { $0.loadError == nil }
            try await db.execute("INSERT INTO items VALUES (2)")
            try await value(of: $ids) { $0 == [1, 2] }
        }
    }
}

/// The schema `live_query` belongs to the installer or a superuser, or nothing is installed: a
/// role that creates it (or anything in it) first gains no right over another's tables; writes
/// that worked before an install still work after it.
@Suite(.postgreSQLInstalled, .timeLimit(.minutes(2)))
struct ChangeLogOwnershipTests {
    @Test func aLogSchemaOfAnotherRoleIsRefusedBeforeAnythingChanges() async throws {
        let attacker = ChangeLogSecurityTests.roleName("attacker")
        let owner = ChangeLogSecurityTests.roleName("owner")
        try await ChangeLogSecurityTests.withRoles([attacker, owner]) { admin, roles in
            let database = admin.configuration.database
            try await admin.execute("GRANT CREATE ON DATABASE \(String.quotedIdentifier(database)) TO \(attacker)")
            try await admin.execute("CREATE TABLE secrets(id INTEGER, ssn TEXT)")
            // The attacker's log, and a trigger function of its own, before any install.
            for statement in [
                "CREATE SCHEMA live_query",
                """
                CREATE TABLE live_query.changes(id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                    xid xid8 NOT NULL DEFAULT pg_current_xact_id(), payload text NOT NULL)
                """,
                "GRANT USAGE ON SCHEMA live_query TO PUBLIC", "GRANT INSERT (payload) ON live_query.changes TO PUBLIC",
            ] {
                try await roles[0].execute(statement)
            }
            let error = await #expect(throws: PostgreSQLError.self) {
                try await admin.installChangeNotifications(on: ["secrets"])
            }
            #expect(error?.sqlState == "42501")
            #expect(error?.message.contains("belongs to role \(attacker)") == true, "\(String(describing: error))")
            let triggers = try await admin.fetchOne("SELECT count(*) AS n FROM pg_trigger WHERE NOT tgisinternal")
            #expect(try triggers?["n"] as Int? == 0)

            // A schema that a superuser gave another role: that role could replace the function
            // that a superuser's table would call, so the superuser's table is refused.
            try await admin.execute("DROP SCHEMA live_query CASCADE")
            try await admin.execute("CREATE SCHEMA live_query AUTHORIZATION \(owner)")
            try await admin.execute("CREATE TABLE owned(id INTEGER)")
            try await admin.execute("ALTER TABLE owned OWNER TO \(owner)")
            try await roles[1].installChangeNotifications(on: ["owned"])
            let refused = await #expect(throws: PostgreSQLError.self) {
                try await admin.installChangeNotifications(on: ["secrets"])
            }
            #expect(refused?.message.contains("belongs to role \(owner)") == true, "\(String(describing: refused))")
            let onSecrets = try await admin.fetchOne(
                "SELECT count(*) AS n FROM pg_trigger WHERE tgrelid = 'secrets'::regclass AND NOT tgisinternal")
            #expect(try onSecrets?["n"] as Int? == 0)
        }
    }

    @Test func theEventTriggersCallTheFunctionOfTheLogsSchemaWhateverTheSearchPath() async throws {
        let attacker = ChangeLogSecurityTests.roleName("attacker")
        try await ChangeLogSecurityTests.withRoles([attacker]) { admin, roles in
            let database = admin.configuration.database
            try await admin.execute("GRANT CREATE ON DATABASE \(String.quotedIdentifier(database)) TO \(attacker)")
            // The superuser's own schema comes first in its search path ("$user").
            try await roles[0].execute("CREATE SCHEMA postgres")
            try await roles[0].execute(
                """
                CREATE FUNCTION postgres.live_query_notify_schema_change() RETURNS event_trigger LANGUAGE plpgsql
                AS $f$ BEGIN END $f$
                """)
            try await admin.execute("CREATE TABLE t(id INTEGER)")
            try await admin.installChangeNotifications(on: ["t"])
            let functions = try await admin.fetchAll(
                """
                SELECT n.nspname::text AS schema, pg_get_userbyid(p.proowner)::text AS owner FROM pg_event_trigger AS e
                JOIN pg_proc AS p ON p.oid = e.evtfoid JOIN pg_namespace AS n ON n.oid = p.pronamespace
                WHERE e.evtname LIKE 'live_query%'
                """)
            #expect(functions.count == 2)
            for function in functions {
                #expect(try function["schema"] as String == "live_query")
                #expect(try function["owner"] as String == admin.configuration.user)
            }
        }
    }

    @Test func writesThroughColumnPrivilegesAndViewsStillWorkAfterAnInstall() async throws {
        let writer = ChangeLogSecurityTests.roleName("writer")
        let viewer = ChangeLogSecurityTests.roleName("viewer")
        try await ChangeLogSecurityTests.withRoles([writer, viewer]) { admin, roles in
            for statement in [
                "CREATE TABLE plain(id INTEGER PRIMARY KEY, pub TEXT)", "INSERT INTO plain VALUES (1, 'a')",
                "GRANT SELECT (id, pub), INSERT (id, pub), UPDATE (pub) ON plain TO \(writer)",
                "CREATE VIEW plain_v AS SELECT id, pub FROM plain", "GRANT SELECT, INSERT ON plain_v TO \(viewer)",
            ] {
                try await admin.execute(statement)
            }
            try await admin.installChangeNotifications(on: ["plain"])
            try await roles[0].execute("UPDATE plain SET pub = 'q' WHERE id = 1")
            try await roles[0].execute("INSERT INTO plain (id, pub) VALUES (5, 'b')")
            try await roles[1].execute("INSERT INTO plain_v VALUES (6, 'c')")
            let count = try await admin.fetchOne("SELECT count(*) AS n FROM plain")
            #expect(try count?["n"] as Int? == 3)
        }
    }

    @Test func aReaderOfAPartitionedTableFollowsWritesIntoItsPartitions() async throws {
        let reader = ChangeLogSecurityTests.roleName("reader")
        try await ChangeLogSecurityTests.withRoles([reader]) { admin, roles in
            for statement in [
                "CREATE TABLE m(id INTEGER, v INTEGER) PARTITION BY RANGE (v)",
                "CREATE TABLE m1 PARTITION OF m FOR VALUES FROM (0) TO (10)",
                "CREATE TABLE m2 PARTITION OF m FOR VALUES FROM (10) TO (20)",
                "GRANT SELECT ON m TO \(reader)",
            ] {
                try await admin.execute(statement)
            }
            try await admin.installChangeNotifications(on: ["m"])
            let db = roles[0]
            @SharedReader(.fetchAll("SELECT id FROM m ORDER BY id", database: db)) var ids: [Int]
            await db.liveEngine.source.untilListening()
            try await $ids.load()
            try await admin.execute("INSERT INTO m2 VALUES (4, 14)")
            try await value(of: $ids) { $0 == [4] }
            try await admin.execute("INSERT INTO m1 VALUES (3, 3)")
            try await value(of: $ids) { $0 == [3, 4] }
        }
    }
}

private struct Measure: Codable, Equatable, FetchableRow {
    var id: Int
    var region: String
}
