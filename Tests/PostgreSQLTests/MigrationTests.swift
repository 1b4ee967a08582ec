import Foundation
import PostgreSQL
import PostgreSQLTestServer
import SQLite
import Testing

@Suite(.postgreSQLInstalled)
struct MigrationTests {
    /// A folder of numbered migration files, removed afterwards.
    final class MigrationFolder {
        let path = NSTemporaryDirectory() + "pg-migrations-" + UUID().uuidString

        init(_ files: [String: String]) throws {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            for (name, sql) in files { try write(name, sql) }
        }

        func write(_ name: String, _ sql: String) throws {
            try sql.write(toFile: path + "/" + name, atomically: true, encoding: .utf8)
        }

        func migrator() throws -> PostgreSQLMigrator {
            var migrator = PostgreSQLMigrator()
            try migrator.registerMigrations(inDirectory: path)
            return migrator
        }

        deinit { try? FileManager.default.removeItem(atPath: path) }
    }

    static let schema = """
        -- Lists; a semicolon in a comment; does not split.
        CREATE TABLE lists(id BIGSERIAL PRIMARY KEY, name TEXT NOT NULL DEFAULT 'a;b');
        CREATE TABLE items(
            id BIGSERIAL PRIMARY KEY, list_id BIGINT NOT NULL REFERENCES lists(id), title TEXT NOT NULL,
            done BOOLEAN NOT NULL DEFAULT false
        );
        /* A function whose body holds semicolons: /* nested */ still a comment; */
        CREATE FUNCTION touch() RETURNS trigger LANGUAGE plpgsql AS $body$
        BEGIN
            NEW.title := NEW.title || ';';
            RETURN NEW;
        END;
        $body$;
        """

    @Test func migrationsApplyOnceAndAgainDoNothing() async throws {
        let folder = try MigrationFolder([
            "0001_schema.sql": Self.schema,
            "0002_seed.sql":
                "INSERT INTO lists(name) VALUES (E'it''s \\\\ ;'); INSERT INTO items(list_id, title) VALUES (1, 'milk');",
        ])
        try await TestServer.withDatabase { (db: PostgreSQLDatabase) async throws in
            let migrator = try folder.migrator()
            #expect(try await migrator.appliedMigrations(db).isEmpty)
            try await migrator.migrate(db)
            try await migrator.migrate(db)
            let applied = try await migrator.appliedMigrations(db)
            #expect(applied.map(\.identifier) == ["0001_schema", "0002_seed"])
            #expect(applied.map(\.checksum) == migrator.migrations.map(\.checksum))
            #expect(try await db.fetchAll("SELECT id FROM items").count == 1)
            #expect(try await db.fetchOne("SELECT name FROM lists")?.value(named: "name") == .text("it's \\ ;"))
        }
    }

    @Test func anAppliedMigrationWhoseFileChangedIsRefused() async throws {
        let folder = try MigrationFolder(["0001_schema.sql": "CREATE TABLE lists(id BIGINT PRIMARY KEY);"])
        try await TestServer.withDatabase { (db: PostgreSQLDatabase) async throws in
            try await folder.migrator().migrate(db)
            try folder.write("0001_schema.sql", "CREATE TABLE lists(id BIGINT PRIMARY KEY, name TEXT);")
            try folder.write("0002_more.sql", "CREATE TABLE more(id BIGINT);")
            let error = await #expect(throws: MigrationError.self) { try await folder.migrator().migrate(db) }
            guard case .checksumMismatch = error?.reason else {
                Issue.record("expected a checksum mismatch, got \(String(describing: error))")
                return
            }
            #expect(error?.identifier == "0001_schema")
            #expect(
                try await db.fetchOne("SELECT to_regclass('more') IS NULL AS missing")?.value(named: "missing")
                    == .integer(1))
        }
    }

    @Test func statusTellsAppliedPendingEditedAndUnknownAsOnSQLite() async throws {
        let folder = try MigrationFolder([
            "0001_lists.sql": "CREATE TABLE lists(id BIGINT PRIMARY KEY);",
            "0002_items.sql": "CREATE TABLE items(id BIGINT PRIMARY KEY);",
            "0003_gone.sql": "CREATE TABLE gone(id BIGINT PRIMARY KEY);",
        ])
        try await TestServer.withDatabase { (db: PostgreSQLDatabase) async throws in
            #expect(try await folder.migrator().status(db).map(\.state) == [.pending, .pending, .pending])
            try await folder.migrator().migrate(db)
            try folder.write("0002_items.sql", "CREATE TABLE items(id BIGINT PRIMARY KEY, title TEXT);")
            try FileManager.default.removeItem(atPath: folder.path + "/0003_gone.sql")
            try folder.write("0004_new.sql", "CREATE TABLE new(id BIGINT PRIMARY KEY);")
            let status = try await folder.migrator().status(db)
            let applied = try await folder.migrator().appliedMigrations(db)
            let dates = Dictionary(uniqueKeysWithValues: applied.map { ($0.identifier, $0.appliedAt) })
            #expect(status.map(\.identifier) == ["0001_lists", "0002_items", "0004_new", "0003_gone"])
            #expect(
                status.map(\.state) == [
                    .applied(try #require(dates["0001_lists"])),
                    .changedSinceApplied(try #require(dates["0002_items"])),
                    .pending, .unknown(try #require(dates["0003_gone"])),
                ])
        }
    }

    @Test func aFailingMigrationLeavesNoTrace() async throws {
        let folder = try MigrationFolder([
            "0001_lists.sql": "CREATE TABLE lists(id BIGINT PRIMARY KEY);",
            "0002_broken.sql": "CREATE TABLE items(id BIGINT PRIMARY KEY); INSERT INTO nowhere VALUES (1);",
        ])
        try await TestServer.withDatabase { (db: PostgreSQLDatabase) async throws in
            let error = await #expect(throws: MigrationError.self) { try await folder.migrator().migrate(db) }
            #expect(error?.identifier == "0002_broken")
            guard case .failed(let cause) = error?.reason else {
                Issue.record("expected a failed migration, got \(String(describing: error))")
                return
            }
            #expect((cause as? PostgreSQLError)?.sqlState == "42P01")
            #expect(try await folder.migrator().appliedMigrations(db).map(\.identifier) == ["0001_lists"])
            let items = try await db.fetchOne("SELECT to_regclass('items') IS NULL AS missing")
            #expect(items?.value(named: "missing") == .integer(1))
        }
    }

    @Test func aSwiftMigrationRunsInItsOwnTransaction() async throws {
        struct Refused: Error {}
        var migrator = PostgreSQLMigrator()
        try migrator.registerMigration("0001_lists", sql: "CREATE TABLE lists(id BIGINT PRIMARY KEY, name TEXT)")
        try migrator.registerMigration("0002_seed") { tx in
            try await tx.execute("INSERT INTO lists(id, name) VALUES ($1, $2)", [.integer(1), .text("Inbox")])
            // The migration sees its own writes: it runs inside the transaction.
            let count = try await tx.fetchOne("SELECT count(*) AS n FROM lists")?.value(named: "n")
            #expect(count == .integer(1))
        }
        try migrator.registerMigration("0003_half") { tx in
            try await tx.execute("CREATE TABLE items(id BIGINT)")
            throw Refused()
        }
        try await TestServer.withDatabase { (db: PostgreSQLDatabase) async throws in
            let error = await #expect(throws: MigrationError.self) { try await migrator.migrate(db) }
            #expect(error?.identifier == "0003_half")
            guard case .failed(let cause) = error?.reason else {
                Issue.record("expected failed, got \(String(describing: error))")
                return
            }
            #expect(cause is Refused)
            #expect(try await migrator.appliedMigrations(db).map(\.identifier) == ["0001_lists", "0002_seed"])
            #expect(try await db.fetchAll("SELECT name FROM lists").map { $0.value(named: "name") } == [.text("Inbox")])
            let items = try await db.fetchOne("SELECT to_regclass('items') IS NULL AS missing")
            #expect(items?.value(named: "missing") == .integer(1))
            #expect(try await migrator.status(db).map(\.state.isPending) == [false, false, true])
        }
    }

    @Test func aSwiftMigrationMayNotEndItsTransaction() async throws {
        var migrator = PostgreSQLMigrator()
        try migrator.registerMigration("0001_commit") { tx in
            try await tx.execute("CREATE TABLE lists(id BIGINT)")
            // Caught, as a careless migration might: the refusal still fails the migration.
            _ = try? await tx.execute("COMMIT")
            try await tx.execute("CREATE TABLE items(id BIGINT)")
        }
        try await TestServer.withDatabase { (db: PostgreSQLDatabase) async throws in
            let error = await #expect(throws: MigrationError.self) { try await migrator.migrate(db) }
            guard case .transactionControl(let sql) = error?.reason else {
                Issue.record("expected transactionControl, got \(String(describing: error))")
                return
            }
            #expect(sql == "COMMIT")
            #expect(try await migrator.appliedMigrations(db).isEmpty)
            let missing = try await db.fetchOne(
                "SELECT to_regclass('lists') IS NULL AND to_regclass('items') IS NULL AS missing")
            #expect(missing?.value(named: "missing") == .integer(1))
        }
    }

    @Test func aMigrationMayNotEndItsTransaction() async throws {
        var migrator = PostgreSQLMigrator()
        try migrator.registerMigration("0001_commit", sql: "CREATE TABLE lists(id BIGINT); COMMIT;")
        try await TestServer.withDatabase { (db: PostgreSQLDatabase) async throws in
            let error = await #expect(throws: MigrationError.self) { try await migrator.migrate(db) }
            guard case .transactionControl = error?.reason else {
                Issue.record("expected transactionControl, got \(String(describing: error))")
                return
            }
            #expect(
                try await db.fetchOne("SELECT to_regclass('lists') IS NULL AS missing")?.value(named: "missing")
                    == .integer(1))
        }
    }
}

extension MigrationStatus.State {
    fileprivate var isPending: Bool { self == .pending }
}
