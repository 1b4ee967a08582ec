import Foundation
import Testing

@testable import SQLite

@Suite("Migrator")
struct MigratorTests {
    @Test("migrations apply once, in order, and are recorded")
    func appliesInOrder() throws {
        let queue = try DatabaseQueue()
        var migrator = Migrator()
        try migrator.registerMigration("v1") { db in try db.execute("CREATE TABLE lists(id INTEGER PRIMARY KEY)") }
        try migrator.registerMigration("v2") { db in try db.execute("ALTER TABLE lists ADD COLUMN name TEXT") }
        try migrator.migrate(queue)
        try migrator.migrate(queue)  // nothing left to do: must not fail on ALTER again
        let applied = try migrator.appliedMigrations(queue)
        #expect(applied.map(\.identifier) == ["v1", "v2"])
        #expect(applied.allSatisfy { abs($0.appliedAt.timeIntervalSinceNow) < 60 })
        #expect(try queue.read { db in try db.fetchAll("PRAGMA table_info(lists)").count } == 2)
        #expect(try !migrator.hasPendingMigrations(queue))
    }

    @Test("a failing migration rolls back whole; earlier ones stay applied")
    func failureRollsBack() throws {
        let queue = try DatabaseQueue()
        var migrator = Migrator()
        try migrator.registerMigration("v1") { db in try db.execute("CREATE TABLE a(x)") }
        try migrator.registerMigration(
            "v2", sql: "CREATE TABLE b(y); INSERT INTO a VALUES (1); INSERT INTO nope VALUES (1);",
            file: "0002_broken.sql")
        try migrator.registerMigration("v3") { db in try db.execute("CREATE TABLE c(z)") }
        let error = #expect(throws: MigrationError.self) { try migrator.migrate(queue) }
        #expect(error?.identifier == "v2")
        #expect(error?.description.contains("0002_broken.sql") == true)
        #expect(error?.description.contains("no such table: nope") == true)
        try queue.read { db in
            let tables = try db.fetchAll(
                String.self, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
            #expect(tables == ["a", "schema_migrations"])
            #expect(try db.fetchOne(Int.self, "SELECT count(*) FROM a") == 0)
        }
        #expect(try migrator.appliedMigrations(queue).map(\.identifier) == ["v1"])
        #expect(try migrator.status(queue).map(\.state).last == .pending)
    }

    @Test("a migration that breaks a foreign key is rolled back")
    func foreignKeyCheck() throws {
        let queue = try DatabaseQueue()
        var migrator = Migrator()
        try migrator.registerMigration(
            "schema",
            sql: """
                CREATE TABLE lists(id INTEGER PRIMARY KEY);
                CREATE TABLE items(id INTEGER PRIMARY KEY, list_id INTEGER REFERENCES lists(id));
                """)
        try migrator.registerMigration("orphans", sql: "INSERT INTO items(list_id) VALUES (42);")
        let error = #expect(throws: MigrationError.self) { try migrator.migrate(queue) }
        #expect(error?.identifier == "orphans")
        #expect(error?.description.contains("foreign key violation") == true)
        #expect(try queue.read { db in try db.fetchOne(Int.self, "SELECT count(*) FROM items") } == 0)
        // Foreign keys are on again after the migration.
        #expect(try queue.read { db in try db.fetchOne(Bool.self, "PRAGMA foreign_keys") } == true)
    }

    @Test("a folder of numbered .sql files applies in numeric order")
    func folder() throws {
        let folder = try TemporaryDirectory()
        try "CREATE TABLE t(x);".write(toFile: folder.file("0001_create.sql"), atomically: true, encoding: .utf8)
        try "INSERT INTO t VALUES (10);".write(toFile: folder.file("0010_ten.sql"), atomically: true, encoding: .utf8)
        try "INSERT INTO t VALUES (2);".write(toFile: folder.file("0002_two.sql"), atomically: true, encoding: .utf8)
        try "ignored".write(toFile: folder.file("README.md"), atomically: true, encoding: .utf8)
        var migrator = Migrator()
        try migrator.registerMigrations(inDirectory: folder.path)
        #expect(migrator.migrations.map(\.identifier) == ["0001_create", "0002_two", "0010_ten"])
        let queue = try DatabaseQueue(path: folder.file("db.sqlite"))
        try migrator.migrate(queue)
        #expect(try queue.read { db in try db.fetchAll(Int.self, "SELECT x FROM t ORDER BY rowid") } == [2, 10])
        #expect(try migrator.appliedMigrations(queue).allSatisfy { $0.checksum?.count == 16 })
    }

    @Test("an applied .sql file that changed is an error, never skipped")
    func checksumMismatch() throws {
        let folder = try TemporaryDirectory()
        let file = folder.file("0001_create.sql")
        try "CREATE TABLE t(x);".write(toFile: file, atomically: true, encoding: .utf8)
        let queue = try DatabaseQueue(path: folder.file("db.sqlite"))
        var first = Migrator()
        try first.registerMigrations(inDirectory: folder.path)
        try first.migrate(queue)

        try "CREATE TABLE t(x, y);".write(toFile: file, atomically: true, encoding: .utf8)
        try "CREATE TABLE u(z);".write(toFile: folder.file("0002_more.sql"), atomically: true, encoding: .utf8)
        var second = Migrator()
        try second.registerMigrations(inDirectory: folder.path)
        let error = #expect(throws: MigrationError.self) { try second.migrate(queue) }
        #expect(error?.identifier == "0001_create")
        #expect(error?.description.contains("has changed") == true)
        let states = try second.status(queue).map(\.state)
        guard case .changedSinceApplied = states[0] else {
            Issue.record("expected changedSinceApplied, got \(states[0])")
            return
        }
        #expect(states[1] == .pending)
        #expect(
            try queue.read { db in try db.fetchOne(Int.self, "SELECT count(*) FROM sqlite_master WHERE name = 'u'") }
                == 0)
    }

    @Test("the demo migrations build the demo database with at least 10,000 items")
    func demoDatabase() throws {
        let folder = try TemporaryDirectory()
        let queue = try DatabaseQueue(path: folder.file("demo.sqlite"))
        var migrator = Migrator()
        try migrator.registerMigrations(inDirectory: demoMigrationsDirectory)
        try migrator.migrate(queue)
        try queue.read { db in
            #expect(try db.fetchOne(Int.self, "SELECT count(*) FROM items")! >= 10_000)
            #expect(try db.fetchOne(Int.self, "SELECT count(*) FROM lists") == 5)
            #expect(try db.fetchOne(Int.self, "SELECT count(*) FROM items WHERE notes IS NULL")! > 0)
            #expect(try db.fetchOne(Int.self, "SELECT count(*) FROM items WHERE due IS NULL")! > 0)
            let due = try db.fetchOne(Date.self, "SELECT due FROM items WHERE due IS NOT NULL ORDER BY due LIMIT 1")
            #expect(due != nil)
            #expect(try db.fetchAll("PRAGMA foreign_key_check").isEmpty)
        }
        // The same data on every run.
        let checksum = try queue.read { db in
            try db.fetchOne(Int.self, "SELECT sum(length(title) * id + priority + done) FROM items")
        }
        let again = try DatabaseQueue()
        try migrator.migrate(again)
        #expect(
            try again.read { db in
                try db.fetchOne(Int.self, "SELECT sum(length(title) * id + priority + done) FROM items")
            } == checksum)
    }
}
