import CSQLite
import ChildProcesses
import Foundation
import Glibc
import Locking
import Testing

@testable import SQLite

/// Reads with ``Database/Configuration/readsWithoutLocks``: another process's writer commits in
/// the middle of one, and the read still returns one committed state.
@Suite("Reads without locks", .serialized)
struct UnlockedReadsTests {
    static func database(journal: String, rows: Int = 10) throws -> (TemporaryDirectory, String) {
        let directory = try TemporaryDirectory()
        let path = directory.file("unlocked.sqlite")
        let db = try Database(path: path)
        _ = try db.fetchOne(String.self, "PRAGMA journal_mode = \(journal)")
        try db.executeScript(
            """
            CREATE TABLE accounts(id INTEGER PRIMARY KEY, balance INTEGER NOT NULL, padding BLOB);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(rows))
            INSERT INTO accounts SELECT i, 100, randomblob(300) FROM n;
            """)
        return (directory, path)
    }

    static func queue(_ path: String, withoutLocks: Bool, busyTimeout: Duration = .seconds(5)) throws
        -> DatabaseQueue
    {
        var configuration = Database.Configuration.readOnly
        configuration.readsWithoutLocks = withoutLocks
        configuration.busyTimeout = busyTimeout
        return try DatabaseQueue(path: path, configuration: configuration)
    }

    @Test(
        "A writer with no busy timeout commits in the middle of a read, which is done again and sees it",
        arguments: ["delete", "truncate", "persist"])
    func aWriterCommitsDuringARead(journal: String) throws {
        let (directory, path) = try Self.database(journal: journal)
        _ = directory
        // A locking read makes the same write fail: what the option is for.
        let locking = try Self.queue(path, withoutLocks: false)
        let refused = try locking.read { db -> ChildProcess.Termination in
            _ = try db.fetchOne(Int.self, "SELECT count(*) FROM accounts")
            return try SQLiteShell.runWithoutTimeout(path, "INSERT INTO accounts(balance) VALUES (1)").termination
        }
        #expect(refused != .exited(0), "a write during a locking read of a \(journal) database")

        let unlocked = try Self.queue(path, withoutLocks: true)
        let runs = Lock(0)
        let (count, termination) = try unlocked.read { db -> (Int?, ChildProcess.Termination?) in
            let first = runs.withLock { runs in
                runs += 1
                return runs == 1
            }
            let before = try db.fetchOne(Int.self, "SELECT count(*) FROM accounts")
            guard first else { return (before, nil) }
            let write = try SQLiteShell.runWithoutTimeout(path, "INSERT INTO accounts(balance) VALUES (2)")
            #expect(write.errors == "")
            return (before, write.termination)
        }
        #expect(termination == nil, "the read that saw the write begin was done again")
        #expect(runs.withLock { $0 } == 2)
        #expect(count == 11)
        #expect(try unlocked.read { db in try db.fetchOne(Int.self, "SELECT count(*) FROM accounts") } == 11)
    }

    @Test("A read waits while another process holds the exclusive lock, at most the busy timeout")
    func aReadWaitsForAWriter() throws {
        let (directory, path) = try Self.database(journal: "delete")
        _ = directory
        let unlocked = try Self.queue(path, withoutLocks: true, busyTimeout: .milliseconds(200))
        let writer = try ChildProcess("/usr/bin/sqlite3", [path], input: .pipe, output: .pipe)
        try writer.write("BEGIN EXCLUSIVE;\nUPDATE accounts SET balance = 0;\nSELECT 'locked';\n")
        var answer = [UInt8](repeating: 0, count: 64)
        let answered = answer.withUnsafeMutableBytes { read(writer.output!, $0.baseAddress, $0.count) }
        #expect(answered > 0)
        let error = #expect(throws: SQLiteError.self) {
            try unlocked.read { db in try db.fetchOne(Int.self, "SELECT sum(balance) FROM accounts") }
        }
        #expect(error?.code == SQLITE_BUSY)
        #expect(error?.message.contains("kept writing") == true, "\(error?.message ?? "")")
        try writer.write("COMMIT;\n")
        writer.closeInput()
        #expect(try writer.wait(timeLimit: .seconds(60)) == .exited(0))
        #expect(try unlocked.read { db in try db.fetchOne(Int.self, "SELECT sum(balance) FROM accounts") } == 0)
    }

    @Test(
        "While another process moves money between accounts in large transactions, some rolled back, every read sees the same total",
        arguments: ["delete", "persist"])
    func everyReadSeesOneCommittedState(journal: String) throws {
        let rows = 3_000
        let (directory, path) = try Self.database(journal: journal, rows: rows)
        // A small cache makes the writer spill changed pages into the file before it commits.
        var script = ".timeout 5000\nPRAGMA cache_size = 5;\n"
        var generator = SystemRandomNumberGenerator()
        for round in 0..<120 {
            let low = Int.random(in: 1...(rows / 2), using: &generator)
            script += "BEGIN;\n"
            script +=
                "UPDATE accounts SET balance = balance - 7, padding = randomblob(310) WHERE id >= \(low) AND id % 2 = 0;\n"
            script +=
                "UPDATE accounts SET balance = balance + 7, padding = randomblob(290) WHERE id >= \(low) AND id % 2 = 0;\n"
            script += round % 5 == 0 ? "ROLLBACK;\n" : "COMMIT;\n"
            // A pause between transactions, as programs make: a writer that never pauses leaves
            // no moment in which to read without a lock, and its readers fail at the busy timeout.
            script += ".shell sleep 0.05\n"
        }
        let scriptPath = directory.file("writes.sql")
        try script.write(toFile: scriptPath, atomically: true, encoding: .utf8)
        let writer = try ChildProcess("/usr/bin/sqlite3", [path], input: .file(scriptPath), error: .pipe)
        let unlocked = try Self.queue(path, withoutLocks: true, busyTimeout: .seconds(30))
        var reads = 0
        while !writer.hasEnded || reads == 0 {
            let (total, count) = try unlocked.read { db in
                (
                    try db.fetchOne(Int.self, "SELECT sum(balance) FROM accounts"),
                    try db.fetchOne(Int.self, "SELECT count(*) FROM accounts WHERE length(padding) >= 290")
                )
            }
            #expect(total == rows * 100, "read \(reads)")
            #expect(count == rows, "read \(reads)")
            reads += 1
        }
        #expect(try writer.wait(timeLimit: .seconds(120)) == .exited(0))
        #expect(try unlocked.read { db in try db.fetchOne(String.self, "PRAGMA integrity_check") } == "ok")
    }
}
