import Foundation
import Testing

@Suite("sqlq migrate")
struct MigrateCommandTests {
    @Test("Applies pending migrations once, creating the file, and reports their state")
    func migrate() throws {
        let directory = try TemporaryDirectory()
        let migrations = directory.file("migrations")
        try FileManager.default.createDirectory(at: migrations, withIntermediateDirectories: true)
        _ = try directory.write("migrations/0001_create.sql", "CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT);")
        let path = directory.file("app.sqlite").path

        let first = try Executable.run(["migrate", "--db", path, "--dir", migrations.path])
        #expect(first.status == 0)
        #expect(first.output == "applied 0001_create\nApplied 1 migration; the database is up to date.\n")

        _ = try directory.write("migrations/0002_seed.sql", "INSERT INTO t(name) VALUES ('a'), ('b');")
        let pending = try Executable.run(["migrate", "--db", path, "--dir", migrations.path, "--status"])
        #expect(pending.lines.count == 2)
        #expect(pending.lines[0].hasPrefix("applied  0001_create 20"))
        #expect(pending.lines[1] == "pending  0002_seed")

        #expect(
            try Executable.run(["migrate", "--db", path, "--dir", migrations.path]).output
                == "applied 0002_seed\nApplied 1 migration; the database is up to date.\n")
        #expect(
            try Executable.run(["migrate", "--db", path, "--dir", migrations.path]).output
                == "Nothing to apply: the database is up to date.\n")
        #expect(try Executable.run(["query", "t", "--count", "--db", path]).output == "2\n")
    }

    @Test("A failing migration is rolled back and exits with 1; an edited one is refused")
    func failures() throws {
        let directory = try TemporaryDirectory()
        let migrations = directory.file("migrations")
        try FileManager.default.createDirectory(at: migrations, withIntermediateDirectories: true)
        _ = try directory.write("migrations/0001_create.sql", "CREATE TABLE t(id INTEGER PRIMARY KEY);")
        _ = try directory.write("migrations/0002_broken.sql", "CREATE TABLE u(id); INSERT INTO nowhere VALUES (1);")
        let path = directory.file("app.sqlite").path

        let broken = try Executable.run(["migrate", "--db", path, "--dir", migrations.path])
        #expect(broken.status == 1)
        #expect(broken.errors.contains("migration \"0002_broken\""))
        #expect(broken.errors.contains("no such table: nowhere"))
        #expect(try Executable.run(["tables", "--db", path]).output == "schema_migrations\nt\n")

        _ = try directory.write("migrations/0002_broken.sql", "CREATE TABLE u(id);")
        _ = try directory.write("migrations/0001_create.sql", "CREATE TABLE t(id INTEGER PRIMARY KEY, edited);")
        let status = try Executable.run(["migrate", "--db", path, "--dir", migrations.path, "--status"])
        #expect(status.lines.first?.hasPrefix("changed  0001_create") == true)
        let edited = try Executable.run(["migrate", "--db", path, "--dir", migrations.path])
        #expect(edited.status == 1)
        #expect(edited.errors.contains("its SQL has changed since"))
    }

    @Test("migrate needs a database file, and a folder it can read")
    func usage() throws {
        let noDatabase = try Executable.run(["migrate"])
        #expect(noDatabase.status == 2)
        #expect(noDatabase.errors.contains("pass --db FILE"))
        let directory = try TemporaryDirectory()
        let noFolder = try Executable.run([
            "migrate", "--db", directory.file("x.sqlite").path, "--dir", directory.file("none").path,
        ])
        #expect(noFolder.status == 1)
        #expect(noFolder.errors.contains("cannot list the folder"))
    }

    @Test("A database locked by another writer for longer than --timeout is named, with advice")
    func locked() throws {
        let directory = try TemporaryDirectory()
        let migrations = directory.file("migrations")
        try FileManager.default.createDirectory(at: migrations, withIntermediateDirectories: true)
        _ = try directory.write("migrations/0001_create.sql", "CREATE TABLE t(id INTEGER PRIMARY KEY);")
        let path = directory.file("app.sqlite").path
        let holder = try LockHolder(path)
        let result = try ChildProcess(["migrate", "--db", path, "--dir", migrations.path, "--timeout", "0.1"]).wait()
        try holder.release()
        #expect(result.status == 1)
        #expect(
            result.errors.hasPrefix(
                "Error: the database \"\(path)\" is locked: another process is writing to it, and it held the lock for longer than --timeout (0.1 s)"
            ), "\(result.errors)")
        #expect(try Executable.run(["migrate", "--db", path, "--dir", migrations.path]).status == 0)
    }
}
