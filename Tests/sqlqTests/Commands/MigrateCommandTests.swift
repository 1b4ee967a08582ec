import ChildProcesses
import Foundation
import SQLite
import Testing

@Suite("sqlq migrate", .onProcessThreads)
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
        let result = try BackgroundCommand(["migrate", "--db", path, "--dir", migrations.path, "--timeout", "0.1"])
            .wait()
        try holder.release()
        #expect(result.status == 1)
        #expect(
            result.errors.hasPrefix(
                "Error: the database \"\(path)\" is locked: another process holds a lock on it (reading or writing), and it held the lock for longer than --timeout (0.1 s)"
            ), "\(result.errors)")
        #expect(try Executable.run(["migrate", "--db", path, "--dir", migrations.path]).status == 0)
    }

    @Test(
        "Without --dir, and with no Migrations/ in the working folder, migrate refuses: the demo's are not the user's")
    func noFolderHere() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("mine.sqlite").path
        try SQLiteShell.run(path, "CREATE TABLE mine(id INTEGER PRIMARY KEY)")
        for arguments in [["migrate", "--db", path], ["migrate", "--db", path, "--status"]] {
            let result = try Executable.run(arguments, directory: directory.url)
            #expect(result.status == 2, "\(arguments)")
            #expect(
                result.errors.contains("no Migrations/ folder here; name the folder with --dir"), "\(result.errors)")
            #expect(result.output.isEmpty)
        }
        let tables = try Database(path: path, configuration: .readOnly).fetchAll(
            String.self, "SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name")
        #expect(tables == ["mine"])
        // A Migrations/ folder in the working folder is the default.
        try FileManager.default.createDirectory(
            at: directory.file("Migrations"), withIntermediateDirectories: true)
        _ = try directory.write("Migrations/0001_t.sql", "CREATE TABLE t(id INTEGER PRIMARY KEY);")
        let local = try Executable.run(["migrate", "--db", path], directory: directory.url)
        #expect(local.status == 0, "\(local.errors)")
        #expect(local.output == "applied 0001_t\nApplied 1 migration; the database is up to date.\n")
    }
}
