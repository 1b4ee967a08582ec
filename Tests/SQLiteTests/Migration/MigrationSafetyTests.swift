import Foundation
import Testing

@testable import SQLite

private func tableNames(_ queue: DatabaseQueue) throws -> [String] {
    try queue.read { db in
        try db.fetchAll(
            String.self,
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name != 'schema_migrations' ORDER BY name")
    }
}

@Suite("Migrator: duplicates and transaction control")
struct MigrationSafetyTests {
    @Test("registering a folder twice is an error naming the migration and its file, and registers nothing more")
    func folderTwice() throws {
        let folder = try TemporaryDirectory()
        try "CREATE TABLE t(x);".write(toFile: folder.file("0001_create.sql"), atomically: true, encoding: .utf8)
        try "CREATE TABLE u(x);".write(toFile: folder.file("0002_more.sql"), atomically: true, encoding: .utf8)
        var migrator = Migrator()
        try migrator.registerMigrations(inDirectory: folder.path)
        let error = #expect(throws: MigrationError.self) { try migrator.registerMigrations(inDirectory: folder.path) }
        #expect(error?.identifier == "0001_create")
        #expect(error?.file == folder.file("0001_create.sql"))
        #expect(error?.description.contains("registered twice") == true)
        #expect(migrator.migrations.map(\.identifier) == ["0001_create", "0002_more"])
    }

    @Test("registering an identifier twice, in Swift or SQL, is an error naming it")
    func identifierTwice() throws {
        var migrator = Migrator()
        try migrator.registerMigration("v1") { db in try db.execute("CREATE TABLE a(x)") }
        let swift = #expect(throws: MigrationError.self) {
            try migrator.registerMigration("v1") { db in try db.execute("CREATE TABLE b(x)") }
        }
        #expect(swift?.identifier == "v1")
        #expect(swift?.description.contains("\"v1\"") == true)
        let sql = #expect(throws: MigrationError.self) {
            try migrator.registerMigration("v1", sql: "CREATE TABLE b(x);", file: "v1.sql")
        }
        #expect(sql?.identifier == "v1")
        #expect(sql?.file == "v1.sql")
        #expect(migrator.migrations.count == 1)
    }

    @Test(
        "SQL that ends the migration's transaction is refused, names the statement, and leaves nothing behind",
        arguments: [
            ("CREATE TABLE c1(x); COMMIT; CREATE TABL c2(x);", "COMMIT"),
            ("CREATE TABLE c1(x); commit transaction;", "commit transaction"),
            ("CREATE TABLE c1(x); END;", "END"),
            ("CREATE TABLE c1(x); ROLLBACK;", "ROLLBACK"),
            ("CREATE TABLE c1(x); ROLLBACK; CREATE TABLE c2(x);", "ROLLBACK"),
            ("CREATE TABLE c1(x); BEGIN;", "BEGIN"),
        ])
    func sqlTransactionControl(sql: String, statement: String) throws {
        let queue = try DatabaseQueue()
        var migrator = Migrator()
        try migrator.registerMigration("v1", sql: "CREATE TABLE before(x);")
        try migrator.registerMigration("v2", sql: sql, file: "0002_commits.sql")
        let error = #expect(throws: MigrationError.self) { try migrator.migrate(queue) }
        #expect(error?.identifier == "v2")
        #expect(error?.description.contains("0002_commits.sql") == true)
        #expect(error?.description.contains(statement) == true, "\(error.map { "\($0)" } ?? "")")
        #expect(try tableNames(queue) == ["before"])
        #expect(try migrator.appliedMigrations(queue).map(\.identifier) == ["v1"])
        #expect(try queue.writeWithoutTransaction { db in db.isInTransaction } == false)
    }

    @Test("a Swift migration that commits, then throws, is refused at the commit and leaves nothing behind")
    func swiftCommit() throws {
        struct Boom: Error {}
        for control in ["COMMIT", "ROLLBACK", "END TRANSACTION"] {
            let queue = try DatabaseQueue()
            var migrator = Migrator()
            try migrator.registerMigration("swift") { db in
                try db.execute("CREATE TABLE c1(x)")
                try? db.execute(control)  // a refusal must not be lost by code that ignores it
                try db.execute("CREATE TABLE c2(x)")
                throw Boom()
            }
            #expect(throws: MigrationError.self) { try migrator.migrate(queue) }
            #expect(try tableNames(queue) == [], "\(control)")
            #expect(try migrator.appliedMigrations(queue).isEmpty, "\(control)")
        }
    }

    @Test("a Swift migration that commits and returns is not recorded as applied")
    func swiftCommitAndReturn() throws {
        let queue = try DatabaseQueue()
        var migrator = Migrator()
        try migrator.registerMigration("swift") { db in
            try db.execute("CREATE TABLE c1(x)")
            try? db.execute("COMMIT")
        }
        let error = #expect(throws: MigrationError.self) { try migrator.migrate(queue) }
        #expect(error?.identifier == "swift")
        #expect(error?.description.contains("COMMIT") == true)
        #expect(try tableNames(queue) == [])
        #expect(try migrator.appliedMigrations(queue).isEmpty)
    }

    @Test("a migration whose transaction SQLite rolled back, and which went on, is not recorded")
    func transactionRolledBackBySQLite() throws {
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute("CREATE TABLE t(x UNIQUE)")
            try db.execute("INSERT INTO t VALUES (1)")
        }
        var migrator = Migrator()
        try migrator.registerMigration("swift") { db in
            try db.execute("CREATE TABLE c1(x)")
            // A conflict with OR ROLLBACK rolls the whole transaction back.
            try? db.execute("INSERT OR ROLLBACK INTO t VALUES (1)")
        }
        let error = #expect(throws: MigrationError.self) { try migrator.migrate(queue) }
        #expect(error?.identifier == "swift")
        #expect(error?.description.contains("rolled back its transaction") == true)
        #expect(try tableNames(queue) == ["t"])
        #expect(try migrator.appliedMigrations(queue).isEmpty)
    }

    @Test("savepoints that stay inside the migration are allowed, in SQL and in Swift")
    func savepointsInside() throws {
        let queue = try DatabaseQueue()
        var migrator = Migrator()
        try migrator.registerMigration(
            "sql",
            sql: """
                SAVEPOINT s; CREATE TABLE undone(x); ROLLBACK TO s; RELEASE s;
                SAVEPOINT t; CREATE TABLE kept(x); RELEASE t;
                SAVEPOINT left_open; CREATE TABLE kept_too(x);
                """)
        try migrator.registerMigration("swift") { db in
            try db.transaction { db in try db.execute("CREATE TABLE nested(x)") }
            struct Boom: Error {}
            _ = try? db.savepoint { db in
                try db.execute("CREATE TABLE undone_too(x)")
                throw Boom()
            }
        }
        try migrator.migrate(queue)
        #expect(try tableNames(queue) == ["kept", "kept_too", "nested"])
        #expect(try migrator.appliedMigrations(queue).map(\.identifier) == ["sql", "swift"])
        #expect(try queue.writeWithoutTransaction { db in db.isInTransaction } == false)
    }

    @Test("after a refused migration the connection commits and rolls back as usual")
    func connectionStillWorks() throws {
        let queue = try DatabaseQueue()
        var migrator = Migrator()
        try migrator.registerMigration("bad", sql: "CREATE TABLE c1(x); COMMIT;")
        #expect(throws: MigrationError.self) { try migrator.migrate(queue) }
        try queue.writeWithoutTransaction { db in
            try db.execute("BEGIN")
            try db.execute("CREATE TABLE t(x)")
            try db.execute("COMMIT")
        }
        #expect(try tableNames(queue) == ["t"])
    }
}
