import Foundation
import Testing

@Suite("sqlq delete", .onProcessThreads)
struct DeleteCommandTests {
    @Test("--yes deletes exactly the matching rows, in one go")
    func yes() throws {
        let database = try TestDatabase.demo()
        let total = try database.count("SELECT count(*) FROM items")
        let matching = try database.count("SELECT count(*) FROM items WHERE done AND due < '2026-02-01'")
        #expect(matching > 0)
        let result = try database.run(["delete", "items", "--where", "done", "--where", "due < 2026-02-01", "--yes"])
        #expect(result.status == 0)
        #expect(result.output == "Deleted \(matching) rows from \"items\".\n")
        #expect(result.errors == "Delete \(matching) rows of \"items\" where done and due < 2026-02-01? [Y/n] yes\n")
        #expect(try database.count("SELECT count(*) FROM items") == total - matching)
        #expect(try database.count("SELECT count(*) FROM items WHERE done AND due < '2026-02-01'") == 0)
    }

    @Test("Without a terminal and without --yes it refuses, exits with 2 and deletes nothing")
    func refuses() throws {
        let database = try TestDatabase.demo()
        let total = try database.count("SELECT count(*) FROM items")
        let result = try database.run(["delete", "items", "--where", "priority = 0"], input: "y\n")
        #expect(result.status == 2)
        #expect(result.errors.hasPrefix("Error: refusing to delete "))
        #expect(result.errors.contains("pass --yes"))
        #expect(try database.count("SELECT count(*) FROM items") == total)
    }

    @Test(
        "On a terminal it asks: no or Ctrl-C keep the rows, yes deletes them",
        arguments: [
            ("n\n", false, "not confirmed; nothing deleted"),
            ("\u{3}", false, "not confirmed: it was interrupted with Ctrl-C; nothing deleted"),
            ("y\n", true, "Deleted"),
        ])
    func confirmation(keys: String, deletes: Bool, outcome: String) async throws {
        let database = try TestDatabase.demo()
        let matching = try database.count("SELECT count(*) FROM items WHERE list_id = 5 AND priority = 0")
        let terminal = try PseudoTerminal()
        let delete = try RunningCommand(
            ["delete", "items", "--where", "list_id = 5 and priority = 0", "--db", database.path], terminal: terminal)
        try await delete.output.waitFor(
            "Delete \(matching) rows of \"items\" where list_id = 5 and priority = 0? [y/N] ")
        terminal.type(keys)
        #expect(try await delete.exitStatus() == (deletes ? 0 : 1))
        try await delete.output.waitFor(deletes ? "Deleted \(matching) rows from \"items\"." : outcome)
        #expect(
            try database.count("SELECT count(*) FROM items WHERE list_id = 5 AND priority = 0")
                == (deletes ? 0 : matching))
    }

    @Test("No match deletes nothing and succeeds; bad filters and a missing --where are usage errors")
    func edges() throws {
        let database = try TestDatabase.demo()
        let total = try database.count("SELECT count(*) FROM items")
        let none = try database.run(["delete", "items", "--where", "priority = 5 and priority = 4"])
        #expect(none.status == 0)
        #expect(none.output == "No rows of \"items\" match; nothing deleted.\n")
        #expect(try database.run(["delete", "items", "--where", "priorty = 5", "--yes"]).status == 2)
        #expect(try database.run(["delete", "items", "--yes"]).status == 2)
        #expect(
            try database.run(["delete", "items", "--where", "title = 'x'' OR 1=1 --'", "--yes"]).output
                == "No rows of \"items\" match; nothing deleted.\n")
        #expect(try database.count("SELECT count(*) FROM items") == total)
    }

    @Test("A database locked by another writer for longer than --timeout is named, and nothing is deleted")
    func locked() throws {
        let database = try TestDatabase.with("CREATE TABLE t(id INTEGER PRIMARY KEY); INSERT INTO t VALUES (1), (2);")
        let holder = try LockHolder(database.path)
        let result = try BackgroundCommand([
            "delete", "t", "--where", "id = 1", "--yes", "--timeout", "0", "--db", database.path,
        ])
        .wait()
        try holder.release()
        #expect(result.status == 1)
        #expect(
            result.errors.contains(
                "Error: the database \"\(database.path)\" is locked: another process holds a lock on it (reading or writing), and it held the lock for longer than --timeout (0 s)"
            ), "\(result.errors)")
        #expect(result.errors.hasSuffix("  nothing was deleted\n"))
        #expect(try database.count("SELECT count(*) FROM t") == 2)
    }
}
