import Foundation
import LiveValueTesting
import PostgreSQLTestServer
import Testing

@testable import PostgreSQL

/// Every row of a table, read with the query builder.
private struct AllRows: FetchKeyRequest {
    var table: String

    func fetch(_ db: any SQLConnection) throws -> [Row] {
        try Table(table).all().fetchAll(db)
    }
}

/// A database set up by `statements`, and a second connection to it, as another instance of the
/// service would hold.
private func withInstances(
    _ statements: [String],
    _ body: (_ reader: PostgreSQLDatabase, _ writer: PostgreSQLDatabase) async throws -> Void
) async throws {
    let configuration = try await TestServer.makeConfiguration()
    let reader = try await PostgreSQLDatabase(configuration)
    let writer = try await PostgreSQLDatabase(configuration)
    do {
        for statement in statements { try await writer.execute(statement) }
        try await body(reader, writer)
    } catch {
        await reader.close()
        await writer.close()
        throw error
    }
    await reader.close()
    await writer.close()
}

@Suite(.postgreSQLInstalled, .timeLimit(.minutes(1)))
struct SchemaChangeTests {
    @Test func aWriteToATableOfTheSameNameInAnotherSchemaWakesNoReader() async throws {
        let schema = [
            "CREATE SCHEMA s2",
            "CREATE TABLE items(id INTEGER)",
            "CREATE TABLE s2.items(id INTEGER)",
        ]
        try await withInstances(schema) { reader, writer in
            try await writer.installChangeNotifications(on: ["items"])
            try await writer.installChangeNotifications(on: ["items"], schema: "s2")
            let error = await #expect(throws: PostgreSQLError.self) {
                try await writer.installChangeNotifications(on: ["items"], schema: "s3")
            }
            #expect(error?.message.contains(#"no such table in schema "s3""#) == true)
            // Unqualified, so resolved through the search path: public.items.
            @SharedReader(wrappedValue: -1, .fetchOne("SELECT count(*) FROM items", database: reader))
            var unqualified: Int
            @SharedReader(.fetch(AllRows(table: "items"), database: reader)) var request: [Row]
            @SharedReader(wrappedValue: -1, .fetchOne("SELECT count(*) FROM s2.items", database: reader))
            var other: Int
            await reader.liveEngine.source.untilListening()
            try await $unqualified.load()
            try await $request.load()
            try await $other.load()
            let before = ($unqualified.fetchCount, $request.fetchCount)
            try await writer.execute("INSERT INTO s2.items VALUES (1)")
            try await value(of: $other) { $0 == 1 }
            // A marker on the readers' own table: once it arrives, the other write was handled.
            try await writer.execute("INSERT INTO items VALUES (1)")
            try await value(of: $unqualified) { $0 == 1 }
            try await value(of: $request) { $0.count == 1 }
            #expect($unqualified.fetchCount == before.0 + 1, "the write to s2.items refetched public.items")
            #expect($request.fetchCount == before.1 + 1, "the write to s2.items refetched the request")
        }
    }

    @Test func aViewRedefinedOverAnotherTableIsFollowed() async throws {
        let schema = [
            "CREATE TABLE a(id INTEGER)",
            "CREATE TABLE b(id INTEGER)",
            "CREATE VIEW v AS SELECT id FROM a",
        ]
        try await withInstances(schema) { reader, writer in
            try await writer.installChangeNotifications(on: ["a", "b"])
            @SharedReader(wrappedValue: -1, .fetchOne("SELECT count(*) FROM v", database: reader)) var count: Int
            await reader.liveEngine.source.untilListening()
            try await $count.load()
            try await writer.execute("INSERT INTO a VALUES (1)")
            try await value(of: $count) { $0 == 1 }
            try await writer.execute("CREATE OR REPLACE VIEW v AS SELECT id FROM b")
            try await value(of: $count) { $0 == 0 }
            try await writer.execute("INSERT INTO b VALUES (1), (2)")
            try await value(of: $count) { $0 == 2 }
        }
    }

    @Test func addingAColumnRefreshesASelectStarKey() async throws {
        try await withInstances(["CREATE TABLE items(id INTEGER)", "INSERT INTO items VALUES (1)"]) {
            reader, writer in
            try await writer.installChangeNotifications(on: ["items"])
            @SharedReader(.fetchAll("SELECT * FROM items", database: reader)) var rows: [Row]
            await reader.liveEngine.source.untilListening()
            try await $rows.load()
            #expect(rows.first?.count == 1)
            try await writer.execute("ALTER TABLE items ADD COLUMN extra INTEGER DEFAULT 7")
            let seen = try await value(of: $rows) { $0.first?.count == 2 }
            #expect(try seen.first?["extra"] == 7)
        }
    }

    @Test func installingAsANonSuperuserInstallsTheTableTriggersOnly() async throws {
        let role = "app_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let schema = [
            "CREATE ROLE \(role) LOGIN",
            "CREATE TABLE items(id INTEGER)",
            "ALTER TABLE items OWNER TO \(role)",
            "GRANT CREATE ON SCHEMA public TO \(role)",
            // For the change log's schema.
            "DO $$ BEGIN EXECUTE format('GRANT CREATE ON DATABASE %I TO \(role)', current_database()); END $$",
        ]
        try await withInstances(schema) { admin, _ in
            var configuration = admin.configuration
            configuration.user = role
            let app = try await PostgreSQLDatabase(configuration)
            do {
                try await app.installChangeNotifications(on: ["items"])
                #expect(try await app.followsSchemaChanges() == false)
                let triggers = try await admin.fetchOne(
                    "SELECT count(*) AS n FROM pg_trigger WHERE tgrelid = 'items'::regclass AND NOT tgisinternal")
                // One per event: insert, update, delete, truncate.
                #expect(try triggers?["n"] == 4)
                await app.close()
            } catch {
                await app.close()
                throw error
            }
            // A superuser's install adds them, twice at once as harmlessly as once.
            async let first: Void = admin.installChangeNotifications(on: ["items"])
            let other = try await PostgreSQLDatabase(admin.configuration)
            do {
                try await other.installChangeNotifications(on: ["items"])
                try await first
                await other.close()
            } catch {
                await other.close()
                throw error
            }
            #expect(try await admin.followsSchemaChanges())
        }
    }
}
