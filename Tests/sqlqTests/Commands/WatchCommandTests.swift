import ChildProcesses
import Foundation
import Glibc
import SQLite
import Testing

@Suite("sqlq watch", .onProcessThreads)
struct WatchCommandTests {
    @Test("A commit by another process is redrawn; Ctrl-C exits with 0")
    func commitByAnotherProcess() async throws {
        let database = try TestDatabase.demo()
        let filter = "list_id = 1 and priority = 5"
        let watch = try RunningCommand(["watch", "items", "--where", filter, "--count", "--db", database.path])
        try await watch.output.waitFor("-- last change at ")
        let before = try database.count("SELECT count(*) FROM items WHERE list_id = 1 AND priority = 5")
        #expect(watch.output.text.hasPrefix("\(before)\n-- last change at "))

        try SQLiteShell.run(
            database.path,
            "INSERT INTO items(list_id, title, priority, created_at) VALUES (1, 'from the shell', 5, '2026-01-01')")
        try await watch.output.waitFor("-- last change at ", occurrences: 2)
        let redraws = watch.output.text.split(separator: "\n").filter { !$0.hasPrefix("-- ") }
        #expect(redraws == ["\(before)", "\(before + 1)"])

        watch.interrupt()
        #expect(try await watch.exitStatus() == 0)
    }

    @Test("Rows are redrawn in the chosen format only when the result changes")
    func rows() async throws {
        let database = try TestDatabase.with(
            """
            CREATE TABLE tasks(id INTEGER PRIMARY KEY, title TEXT NOT NULL, done INTEGER NOT NULL DEFAULT 0);
            INSERT INTO tasks(title) VALUES ('one'), ('two');
            """)
        let watch = try RunningCommand([
            "watch", "tasks", "--where", "not done", "--sort", "id", "--format", "tsv", "--db", database.path,
        ])
        try await watch.output.waitFor("-- 2 rows, last change at ")
        // A commit that leaves the result as it is draws nothing; the next one that changes it does.
        try SQLiteShell.run(database.path, "UPDATE tasks SET done = 1 WHERE id = 99")
        try SQLiteShell.run(database.path, "UPDATE tasks SET done = 1 WHERE id = 1")
        try await watch.output.waitFor("-- 1 row, last change at ")
        let blocks = watch.output.text.components(separatedBy: "\n-- ")
        try #require(blocks.count == 3)
        #expect(blocks[0] == "id\ttitle\tdone\n1\tone\t0\n2\ttwo\t0")
        #expect(blocks[1].hasSuffix("\nid\ttitle\tdone\n2\ttwo\t0"))
        #expect(!watch.output.text.contains("\u{1B}"))

        watch.interrupt()
        #expect(try await watch.exitStatus() == 0)
    }

    @Test("watch --search redraws, best match first, when another process writes a matching row")
    func search() async throws {
        let database = try NotesDatabase.make()
        let watch = try RunningCommand([
            "watch", "notes", "--search", "swift", "--columns", "id,title", "--format", "tsv", "--db", database.path,
        ])
        try await watch.output.waitFor("-- 4 rows, last change at ")
        // A row that does not match leaves the result as it is: nothing is drawn for it.
        try SQLiteShell.run(database.path, "INSERT INTO notes(title, body, archived) VALUES ('Apples', 'red ones', 0)")
        try SQLiteShell.run(
            database.path,
            "INSERT INTO notes(title, body, archived) VALUES ('Swift, swift, swift', 'swift swift', 0)")
        try await watch.output.waitFor("-- 5 rows, last change at ")
        try SQLiteShell.run(database.path, "UPDATE notes SET title = 'Concurrency', body = 'no more' WHERE id = 1")
        try await watch.output.waitFor("-- 4 rows, last change at ", occurrences: 2)
        let blocks = watch.output.text.components(separatedBy: "\n-- ")
        try #require(blocks.count == 4)
        let expected = try SQLiteShell.run(
            database.path,
            """
            SELECT notes.id, notes.title FROM notes JOIN notes_fts ON notes_fts.rowid = notes.id
            WHERE notes_fts MATCH 'swift*' ORDER BY rank
            """, options: ["-tabs", "-header"])
        #expect(blocks[1].contains("\nid\ttitle\n8\tSwift, swift, swift\n"))
        #expect(blocks[2].hasSuffix("\n" + expected.dropLast()))
        #expect(!blocks[2].contains("Swift concurrency"))

        watch.interrupt()
        #expect(try await watch.exitStatus() == 0)
    }

    @Test("A column added by another process is redrawn, with no row changed")
    func columnAddedByAnotherProcess() async throws {
        let database = try TestDatabase.with(
            """
            CREATE TABLE tasks(id INTEGER PRIMARY KEY, title TEXT NOT NULL);
            INSERT INTO tasks(title) VALUES ('one');
            """)
        let watch = try RunningCommand(["watch", "tasks", "--format", "tsv", "--db", database.path])
        try await watch.output.waitFor("id\ttitle\n1\tone\n-- 1 row, last change at ")
        try SQLiteShell.run(database.path, "ALTER TABLE tasks ADD COLUMN due TEXT DEFAULT '2026-05-01'")
        try await watch.output.waitFor("id\ttitle\tdue\n1\tone\t2026-05-01\n-- 1 row, last change at ")

        watch.interrupt()
        #expect(try await watch.exitStatus() == 0)
    }

    @Test("A file replaced by another (mv) is reopened, and the new file watched")
    func replacedFile() async throws {
        let database = try TestDatabase.with(
            """
            CREATE TABLE tasks(id INTEGER PRIMARY KEY, title TEXT NOT NULL);
            INSERT INTO tasks(title) VALUES ('old');
            """)
        let replacement = database.directory.file("replacement.sqlite").path
        try SQLiteShell.run(
            replacement,
            """
            CREATE TABLE tasks(id INTEGER PRIMARY KEY, title TEXT NOT NULL);
            INSERT INTO tasks(title) VALUES ('new one'), ('new two');
            """)
        let watch = try RunningCommand(["watch", "tasks", "--format", "tsv", "--db", database.path])
        try await watch.output.waitFor("1\told\n-- 1 row, last change at ")

        #expect(rename(replacement, database.path) == 0)
        try await watch.output.waitFor("1\tnew one\n2\tnew two\n-- 2 rows, last change at ")
        // The new file's commits are watched too.
        try SQLiteShell.run(database.path, "INSERT INTO tasks(title) VALUES ('new three')")
        try await watch.output.waitFor("3\tnew three\n-- 3 rows, last change at ")

        watch.interrupt()
        #expect(try await watch.exitStatus() == 0)
    }

    @Test("A deleted file stops the watch with status 1 and a message")
    func deletedFile() async throws {
        let database = try TestDatabase.with(
            """
            CREATE TABLE tasks(id INTEGER PRIMARY KEY, title TEXT NOT NULL);
            INSERT INTO tasks(title) VALUES ('one');
            """)
        let watch = try RunningCommand(["watch", "tasks", "--count", "--db", database.path])
        try await watch.output.waitFor("-- last change at ")

        #expect(unlink(database.path) == 0)
        #expect(try await watch.exitStatus() == 1)
        let errors = try #require(watch.errors)
        try await errors.waitFor("stopped watching it\n")
        #expect(errors.text == "Error: the database file \"\(database.path)\" was deleted; stopped watching it\n")
    }

    @Test("watch takes query's options and errors")
    func errors() throws {
        let database = try TestDatabase.demo()
        let result = try database.run(["watch", "items", "--where", "priority >"])
        #expect(result.status == 2)
        #expect(result.errors.hasPrefix("Error: --where: expected a column or a value after \">\""))
        let explain = try database.run(["watch", "items", "--where", "done", "--explain"])
        #expect(explain.status == 0)
        #expect(explain.lines.first == #"SELECT * FROM "items" WHERE "done""#)
    }

    @Test(
        "Writers with no busy timeout (the sqlite3 shell) never fail because watch follows them",
        arguments: ["delete", "truncate", "wal"])
    func writersNeverFail(journal: String) async throws {
        let database = try TestDatabase.with("CREATE TABLE w(id INTEGER PRIMARY KEY, v);")
        _ = try Database(path: database.path).fetchOne(String.self, "PRAGMA journal_mode = \(journal)")
        let watch = try RunningCommand(["watch", "w", "--count", "--db", database.path])
        try await watch.output.waitFor("0\n-- last change at ")
        var failures: [String] = []
        var written = 0
        for attempt in 1...50 {
            let (termination, errors) = try SQLiteShell.runWithoutTimeout(
                database.path, "INSERT INTO w(v) VALUES (\(attempt))")
            guard termination == .exited(0) else {
                failures.append("write \(attempt): \(errors)")
                continue
            }
            written += 1
            // Each write waits for watch to show it, so the next one starts while watch reacts.
            try await watch.output.waitFor("\n\(written)\n-- last change at ")
        }
        #expect(failures.isEmpty, "\(journal): \(failures.count) of 50 writes failed: \(failures.prefix(3))")
        #expect(try database.count("SELECT count(*) FROM w") == written)
        watch.interrupt()
        #expect(try await watch.exitStatus() == 0)
    }
}
