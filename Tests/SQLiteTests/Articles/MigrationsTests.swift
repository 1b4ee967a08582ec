import Foundation
import SQLite
import Testing

// The code of the "Migrations" article (Sources/SQLite/SQLite.docc/Migrations.md).
// ArticleCodeTests checks that every Swift block of the article appears here.

@Suite struct MigrationsTests {
    @Test func article() throws {
        let folder = try TemporaryDirectory()
        let directory = folder.path
        try "CREATE TABLE lists(id INTEGER PRIMARY KEY, name TEXT NOT NULL);".write(
            toFile: folder.file("0001_create_lists.sql"), atomically: true, encoding: .utf8)
        try "INSERT INTO lists(name) VALUES ('Home');".write(
            toFile: folder.file("0002_seed_lists.sql"), atomically: true, encoding: .utf8)
        let queue = try DatabaseQueue(path: folder.file("app.sqlite"))

        var migrator = Migrator()
        try migrator.registerMigrations(inDirectory: directory)  // 0001_create_lists.sql, 0002_seed_lists.sql
        try migrator.registerMigration("add list colors") { db in
            try db.execute("ALTER TABLE lists ADD COLUMN color TEXT")
        }
        try migrator.registerMigration("0004_index_lists", sql: "CREATE INDEX lists_by_name ON lists(name)")

        #expect(try migrator.hasPendingMigrations(queue))

        try migrator.migrate(queue)  // applies what is pending, in order

        for status in try migrator.status(queue) {
            print(status.identifier, status.state)
        }
        // 0001_create_lists applied(…)
        // 0002_seed_lists applied(…)
        // add list colors applied(…)
        // 0004_index_lists applied(…)

        #expect(try !migrator.hasPendingMigrations(queue))
        #expect(try migrator.appliedMigrations(queue).map(\.identifier) == migrator.migrations.map(\.identifier))
        try migrator.migrate(queue)  // a second run applies nothing
        #expect(try queue.read { db in try db.fetchOne(Int.self, "SELECT count(*) FROM lists") } == 1)

        try "INSERT INTO lists(name) VALUES ('Work');".write(
            toFile: folder.file("0002_seed_lists.sql"), atomically: true, encoding: .utf8)
        var edited = Migrator()
        try edited.registerMigrations(inDirectory: directory)

        do {
            try edited.migrate(queue)
        } catch let error as MigrationError {
            print(error)
            // migration "0002_seed_lists" (…/0002_seed_lists.sql) was applied, but its SQL has changed since …
        }

        #expect(throws: MigrationError.self) { try edited.migrate(queue) }

        var broken = Migrator()
        try broken.registerMigration("bad", sql: "CREATE TABLE t(x); INSERT INTO nowhere VALUES (1);")
        #expect(throws: MigrationError.self) { try broken.migrate(queue) }
        // Nothing of the failed migration remains.
        #expect(
            try queue.read { db in try db.fetchOne(Int.self, "SELECT count(*) FROM sqlite_master WHERE name = 't'") }
                == 0)
    }
}
