import Foundation
import SQLite
import Testing

/// `--timeout` and the messages of a database held by another process, run through the real
/// `sqlq` process against a `sqlite3` shell holding the lock.
@Suite("Database options", .onProcessThreads)
struct DatabaseOptionsTests {
    @Test("A negative --timeout is refused with the range it takes, in either spelling")
    func negativeTimeout() throws {
        let database = try TestDatabase.with("CREATE TABLE t(id INTEGER PRIMARY KEY);")
        for arguments in [["--timeout", "-1"], ["--timeout=-1"]] {
            let result = try database.run(["query", "t"] + arguments)
            #expect(result.status == 2, "\(arguments)")
            #expect(
                result.errors.hasPrefix("Error: --timeout takes a number of seconds from 0 to 2147483; -1 is not one"),
                "\(arguments): \(result.errors)")
        }
        #expect(try database.run(["query", "t", "--count", "--timeout", "0.5"]).output == "0\n")
    }

    @Test("A read blocked by a writer's exclusive lock gets the timeout advice")
    func readBlockedByWriter() throws {
        let database = try TestDatabase.with("CREATE TABLE t(id INTEGER PRIMARY KEY); INSERT INTO t VALUES (1);")
        let holder = try LockHolder(database.path, begin: "BEGIN EXCLUSIVE;")
        let commands = [["query", "t", "--count"], ["tables"], ["schema", "t"], ["sql", "SELECT count(*) FROM t"]]
        var results: [CommandResult] = []
        for command in commands {
            results.append(try BackgroundCommand(command + ["--timeout", "0.1", "--db", database.path]).wait())
        }
        try holder.release()
        for (command, result) in zip(commands, results) {
            #expect(result.status == 1, "\(command)")
            #expect(
                result.errors.hasPrefix(
                    "Error: the database \"\(database.path)\" is locked: another process holds a lock on it "
                        + "(reading or writing), and it held the lock for longer than --timeout (0.1 s)"),
                "\(command): \(result.errors)")
        }
    }

    @Test("A write blocked by a reading process is not told that another process is writing")
    func writeBlockedByReader() throws {
        let database = try TestDatabase.with("CREATE TABLE t(id INTEGER PRIMARY KEY); INSERT INTO t VALUES (1), (2);")
        let holder = try LockHolder(database.path, begin: "BEGIN; SELECT count(*) FROM t;")
        let result = try BackgroundCommand([
            "delete", "t", "--where", "id = 1", "--yes", "--timeout", "0.1", "--db", database.path,
        ])
        .wait()
        try holder.release()
        #expect(result.status == 1)
        #expect(!result.errors.contains("writing to it"), "\(result.errors)")
        #expect(
            result.errors.contains(
                "Error: the database \"\(database.path)\" is locked: another process holds a lock on it "
                    + "(reading or writing), and it held the lock for longer than --timeout (0.1 s)"),
            "\(result.errors)")
        #expect(try database.count("SELECT count(*) FROM t") == 2)
    }
}
