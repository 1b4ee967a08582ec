import ChildProcesses
import Foundation
import Testing

@testable import SQLite

/// Collects what a connection's change observer receives.
private final class ChangeLog {
    var commits: [DatabaseChanges] = []
}

private func observedDatabase() throws -> (Database, ChangeLog) {
    let db = try Database()
    try db.executeScript(
        """
        CREATE TABLE items(id INTEGER PRIMARY KEY, title TEXT NOT NULL);
        CREATE TABLE lists(id INTEGER PRIMARY KEY, name TEXT);
        CREATE TABLE tags(name TEXT PRIMARY KEY) WITHOUT ROWID;
        """)
    let log = ChangeLog()
    db.addChangeObserver { log.commits.append($0) }
    return (db, log)
}

@Suite("Change tracking")
struct ChangeTrackingTests {
    @Test("an autocommit write reports its table and rowid")
    func autocommit() throws {
        let (db, log) = try observedDatabase()
        try db.execute("INSERT INTO items(title) VALUES ('milk')")
        #expect(log.commits == [DatabaseChanges(tables: ["items": [1]])])
    }

    @Test("a transaction reports once, at commit, with every table and row it changed")
    func transaction() throws {
        let (db, log) = try observedDatabase()
        try db.transaction { db in
            try db.execute("INSERT INTO items(title) VALUES ('a')")
            try db.execute("INSERT INTO items(title) VALUES ('b')")
            try db.execute("INSERT INTO lists(name) VALUES ('home')")
            #expect(log.commits.isEmpty)
        }
        #expect(log.commits == [DatabaseChanges(tables: ["items": [1, 2], "lists": [1]])])
    }

    @Test("a rollback reports nothing")
    func rollback() throws {
        struct Boom: Error {}
        let (db, log) = try observedDatabase()
        #expect(throws: Boom.self) {
            try db.transaction { db in
                try db.execute("INSERT INTO items(title) VALUES ('a')")
                throw Boom()
            }
        }
        #expect(throws: SQLiteError.self) { try db.execute("INSERT INTO items(title) VALUES (NULL)") }
        #expect(log.commits.isEmpty)
        try db.execute("INSERT INTO lists(name) VALUES ('after')")
        #expect(log.commits == [DatabaseChanges(tables: ["lists": [1]])])
    }

    @Test("work undone by a savepoint rollback is not reported")
    func savepoints() throws {
        struct Boom: Error {}
        let (db, log) = try observedDatabase()
        try db.transaction { db in
            try db.execute("INSERT INTO items(title) VALUES ('kept')")
            do {
                try db.savepoint { db in
                    try db.execute("INSERT INTO lists(name) VALUES ('undone')")
                    throw Boom()
                }
            } catch is Boom {}
        }
        #expect(log.commits == [DatabaseChanges(tables: ["items": [1]])])
    }

    @Test("rolling back an inner savepoint restores the rows the outer ones had changed")
    func nestedSavepoints() throws {
        struct Boom: Error {}
        let (db, log) = try observedDatabase()
        try db.transaction { db in
            try db.execute("INSERT INTO items(title) VALUES ('outer')")
            try db.savepoint { db in
                try db.execute("INSERT INTO lists(name) VALUES ('middle')")
                do {
                    try db.savepoint { db in
                        try db.execute("INSERT INTO items(title) VALUES ('inner')")
                        try db.execute("INSERT INTO tags(name) VALUES ('inner')")
                        throw Boom()
                    }
                } catch is Boom {}
            }
        }
        #expect(log.commits == [DatabaseChanges(tables: ["items": [1], "lists": [1]])])
    }

    @Test("a change set an observer keeps stays as delivered while later commits reuse the storage")
    func keptChangesStay() throws {
        let (db, log) = try observedDatabase()
        try db.execute("INSERT INTO items(title) VALUES ('a')")
        try db.execute("INSERT INTO lists(name) VALUES ('b')")
        try db.execute("UPDATE items SET title = 'c' WHERE id = 1")
        try db.execute("INSERT INTO items(title) VALUES ('d')")
        #expect(
            log.commits == [
                DatabaseChanges(tables: ["items": [1]]), DatabaseChanges(tables: ["lists": [1]]),
                DatabaseChanges(tables: ["items": [1]]), DatabaseChanges(tables: ["items": [2]]),
            ])
        #expect(Array(log.commits[0].changedTables) == ["items"])
        #expect(log.commits[1].contains(table: "lists"))
        #expect(!log.commits[1].contains(table: "items"))
        #expect(!log.commits[1].isEmpty)
    }

    @Test("a table declared in mixed case is reported lowercased, however statements spell it")
    func mixedCaseTable() throws {
        let db = try Database()
        try db.execute("CREATE TABLE MixedCase(id INTEGER PRIMARY KEY, x)")
        let log = ChangeLog()
        db.addChangeObserver { log.commits.append($0) }
        try db.execute("INSERT INTO mixedcase(x) VALUES (1)")
        try db.transaction { db in
            try db.execute("INSERT INTO MIXEDCASE(x) VALUES (2)")
            try db.execute("UPDATE MixedCase SET x = 3")
        }
        #expect(
            log.commits == [
                DatabaseChanges(tables: ["mixedcase": [1]]), DatabaseChanges(tables: ["mixedcase": [1, 2]]),
            ])
        #expect(log.commits.allSatisfy { Array($0.changedTables) == ["mixedcase"] })
    }

    @Test("an observer of some tables hears only the commits that touch them")
    func observedTables() throws {
        let db = try Database()
        try db.executeScript(
            """
            CREATE TABLE items(id INTEGER PRIMARY KEY, title TEXT);
            CREATE TABLE lists(id INTEGER PRIMARY KEY, name TEXT);
            """)
        let tables = ObservedTables(["Items"])
        let log = ChangeLog()
        db.addChangeObserver(observing: tables) { log.commits.append($0) }
        try db.execute("INSERT INTO lists(name) VALUES ('ignored')")
        try db.execute("INSERT INTO items(title) VALUES ('heard')")
        #expect(log.commits == [DatabaseChanges(tables: ["items": [1]])])
        // A selection changed while a transaction runs applies to its commit.
        try db.transaction { db in
            try db.execute("INSERT INTO lists(name) VALUES ('heard at commit')")
            tables.update(["lists"])
        }
        #expect(log.commits.last == DatabaseChanges(tables: ["lists": [2]]))
        tables.update([], all: true)
        try db.execute("INSERT INTO lists(name) VALUES ('all')")
        #expect(log.commits.count == 3)
        tables.update([])
        try db.execute("INSERT INTO items(title) VALUES ('none')")
        #expect(log.commits.count == 3)
    }

    @Test("one selection shared by two databases: each update reaches both")
    func selectionSharedByTwoDatabases() throws {
        let first = try Database()
        let second = try Database()
        let tables = ObservedTables(["a"])
        let logs = [ChangeLog(), ChangeLog()]
        for (db, log) in zip([first, second], logs) {
            try db.executeScript("CREATE TABLE a(x); CREATE TABLE b(y);")
            db.addChangeObserver(observing: tables) { log.commits.append($0) }
            // Each connection's answer for `b` is computed and kept: not selected.
            try db.execute("INSERT INTO b VALUES (1)")
        }
        tables.update(["b"])
        for (db, log) in zip([first, second], logs) {
            try db.execute("INSERT INTO b VALUES (2)")
            #expect(log.commits == [DatabaseChanges(tables: ["b": [2]])])
        }
    }

    @Test("observers of different tables each hear their own commits")
    func observersOfDifferentTables() throws {
        let db = try Database()
        try db.executeScript("CREATE TABLE a(x); CREATE TABLE b(y);")
        let some = ChangeLog()
        let every = ChangeLog()
        db.addChangeObserver(observing: ObservedTables(["a"])) { some.commits.append($0) }
        db.addChangeObserver { every.commits.append($0) }
        try db.execute("INSERT INTO b VALUES (1)")
        #expect(every.commits == [DatabaseChanges(tables: ["b": [1]])])
        #expect(some.commits.isEmpty)
        try db.execute("INSERT INTO a VALUES (1)")
        #expect(some.commits == [DatabaseChanges(tables: ["a": [1]])])
        #expect(every.commits.count == 2)
    }

    @Test("DELETE without WHERE reports every row (no truncate optimization)")
    func deleteAll() throws {
        let (db, log) = try observedDatabase()
        try db.transaction { db in
            for title in ["a", "b", "c"] { try db.execute("INSERT INTO items(title) VALUES (?)", [.text(title)]) }
        }
        try db.execute("DELETE FROM items")
        #expect(log.commits.last == DatabaseChanges(tables: ["items": [1, 2, 3]]))
    }

    @Test("savepoints opened in SQL: work undone by ROLLBACK TO is not reported", arguments: [false, true])
    func sqlSavepoints(script: Bool) throws {
        let statements = [
            "BEGIN", "INSERT INTO items(title) VALUES ('kept')",
            "SAVEPOINT sp1", "INSERT INTO lists(name) VALUES ('undone')", "ROLLBACK TO sp1",
            "savepoint \"Outer\"", "INSERT INTO items(title) VALUES ('kept too')",
            "SAVEPOINT inner", "INSERT INTO lists(name) VALUES ('undone too')", "INSERT INTO tags VALUES ('undone')",
            "RollBack Transaction To Savepoint INNER", "RELEASE inner",
            "SAVEPOINT [second]", "INSERT INTO lists(name) VALUES ('released')", "RELEASE SAVEPOINT second",
            "SAVEPOINT third", "INSERT INTO tags VALUES ('undone with outer')",
            "ROLLBACK TO outer",
            "INSERT INTO items(title) VALUES ('after')",
            "COMMIT",
        ]
        let (db, log) = try observedDatabase()
        if script {
            try db.executeScript(statements.joined(separator: ";\n") + ";")
        } else {
            for sql in statements { try db.execute(sql) }
        }
        #expect(try db.fetchAll(String.self, "SELECT title FROM items ORDER BY id") == ["kept", "after"])
        #expect(log.commits == [DatabaseChanges(tables: ["items": [1, 2]])])
    }

    @Test("a savepoint opened outside a transaction reports at its release, without what was rolled back")
    func outermostSQLSavepoint() throws {
        let (db, log) = try observedDatabase()
        try db.execute("SAVEPOINT a")
        try db.execute("INSERT INTO lists(name) VALUES ('undone')")
        try db.execute("SAVEPOINT b")
        try db.execute("INSERT INTO items(title) VALUES ('kept')")
        try db.execute("RELEASE b")
        #expect(log.commits.isEmpty)
        try db.execute("ROLLBACK TO a")
        try db.execute("INSERT INTO items(title) VALUES ('kept')")
        #expect(throws: SQLiteError.self) { try db.execute("ROLLBACK TO nowhere") }
        try db.execute("RELEASE a")
        #expect(log.commits == [DatabaseChanges(tables: ["items": [1]])])
        // The Swift API and SQL savepoints mix.
        try db.transaction { db in
            try db.execute("SAVEPOINT sql")
            try db.savepoint { db in try db.execute("INSERT INTO lists(name) VALUES ('kept')") }
            try db.execute("INSERT INTO tags VALUES ('undone')")
            try db.execute("ROLLBACK TO sql")
            try db.execute("INSERT INTO items(title) VALUES ('kept')")
        }
        #expect(log.commits.last == DatabaseChanges(tables: ["items": [2]]))
    }

    @Test("writes made by executeScript are reported: DELETE without WHERE, and tables without rowid")
    func scriptWrites() throws {
        let (db, log) = try observedDatabase()
        try db.executeScript("INSERT INTO items(title) VALUES ('a'), ('b'); INSERT INTO tags VALUES ('x');")
        #expect(log.commits == [DatabaseChanges(tables: ["items": [1, 2]]), DatabaseChanges(tables: ["tags": []])])
        try db.executeScript("DELETE FROM items; UPDATE tags SET name = 'y' WHERE name = 'x';")
        #expect(
            log.commits.dropFirst(2) == [
                DatabaseChanges(tables: ["items": [1, 2]]), DatabaseChanges(tables: ["tags": []]),
            ])
    }

    @Test("a table without rowid is reported by name")
    func withoutRowid() throws {
        let (db, log) = try observedDatabase()
        try db.execute("INSERT INTO tags(name) VALUES ('x')")
        #expect(log.commits == [DatabaseChanges(tables: ["tags": []])])
    }

    @Test("reads report nothing, and a removed observer hears nothing")
    func readsAndRemoval() throws {
        let db = try Database()
        try db.execute("CREATE TABLE t(x)")
        let log = ChangeLog()
        let token = db.addChangeObserver { log.commits.append($0) }
        _ = try db.fetchAll("SELECT * FROM t")
        #expect(log.commits.isEmpty)
        db.removeChangeObserver(token)
        try db.execute("INSERT INTO t VALUES (1)")
        #expect(log.commits.isEmpty)
    }

    @Test("data_version moves when another connection commits, not for our own commits")
    func dataVersion() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("db.sqlite")
        let mine = try Database(path: path)
        let other = try Database(path: path)
        try mine.execute("CREATE TABLE t(x)")
        let before = try mine.dataVersion
        try mine.execute("INSERT INTO t VALUES (1)")
        #expect(try mine.dataVersion == before)
        try other.execute("INSERT INTO t VALUES (2)")
        #expect(try mine.dataVersion != before)
    }

    @Test("a commit by the sqlite3 shell, another process, moves data_version")
    func otherProcess() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("db.sqlite")
        let db = try Database(path: path)
        try db.execute("CREATE TABLE t(x)")
        let before = try db.dataVersion
        try SQLiteShell.run(path, "INSERT INTO t VALUES (42);")
        #expect(try db.dataVersion != before)
        #expect(try db.fetchOne(Int.self, "SELECT x FROM t") == 42)
    }
}
