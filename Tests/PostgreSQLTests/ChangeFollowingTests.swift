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

private struct Measure: Codable, Equatable, FetchableRow {
    var id: Int
    var region: String
}
