import CSQLite
import Foundation
import Testing

@testable import SQLite

@Suite("Database")
struct DatabaseTests {
    @Test("an in-memory database runs statements and reports rowids and changes")
    func inMemory() throws {
        let db = try Database()
        try db.execute(
            "CREATE TABLE items(id INTEGER PRIMARY KEY, title TEXT NOT NULL, done INTEGER NOT NULL DEFAULT 0)")
        try db.execute("INSERT INTO items(title, done) VALUES (?, ?)", ["milk", false])
        #expect(db.lastInsertedRowID == 1)
        try db.execute("INSERT INTO items(title, done) VALUES (?, ?)", ["bread", true])
        #expect(db.lastInsertedRowID == 2)
        try db.execute("UPDATE items SET done = 1")
        #expect(db.changesCount == 2)
        #expect(db.totalChangesCount == 4)
        #expect(try db.fetchOne(Int.self, "SELECT count(*) FROM items WHERE done") == 2)
    }

    @Test("a file database keeps its data across connections")
    func fileDatabase() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("app.sqlite")
        do {
            let db = try Database(path: path)
            try db.execute("CREATE TABLE t(x)")
            try db.execute("INSERT INTO t VALUES (42)")
        }
        let reopened = try Database(path: path)
        #expect(try reopened.fetchOne(Int.self, "SELECT x FROM t") == 42)
        #expect(reopened.path == path)
    }

    @Test("foreign keys are enforced by default")
    func foreignKeys() throws {
        let db = try Database()
        try db.executeScript(
            """
            CREATE TABLE lists(id INTEGER PRIMARY KEY);
            CREATE TABLE items(id INTEGER PRIMARY KEY, list_id INTEGER NOT NULL REFERENCES lists(id));
            """)
        let error = #expect(throws: SQLiteError.self) {
            try db.execute("INSERT INTO items(list_id) VALUES (99)")
        }
        #expect(error?.code == SQLITE_CONSTRAINT)
        #expect(error?.extendedCode == 787)  // SQLITE_CONSTRAINT_FOREIGNKEY
        #expect(try db.fetchOne(Int.self, "SELECT count(*) FROM items") == 0)
    }

    @Test("a script runs several statements; execute refuses more than one")
    func scripts() throws {
        let db = try Database()
        try db.executeScript(
            """
            -- a comment
            CREATE TABLE a(x); CREATE TABLE b(y);
            INSERT INTO a VALUES (1); /* trailing comment */
            """)
        #expect(try db.fetchOne(Int.self, "SELECT x FROM a") == 1)
        let error = #expect(throws: SQLiteError.self) {
            try db.execute("INSERT INTO a VALUES (2); DROP TABLE a")
        }
        #expect(error?.message.contains("executeScript") == true)
        #expect(try db.fetchOne(Int.self, "SELECT count(*) FROM a") == 1)
        try db.execute("INSERT INTO a VALUES (3); -- only a comment follows")
        #expect(try db.fetchOne(Int.self, "SELECT count(*) FROM a") == 2)
    }

    @Test("a failing statement of a script stops it and names the statement")
    func scriptFailure() throws {
        let db = try Database()
        let error = #expect(throws: SQLiteError.self) {
            try db.executeScript("CREATE TABLE a(x); INSERT INTO nope VALUES (1); CREATE TABLE b(y);")
        }
        #expect(error?.sql == "INSERT INTO nope VALUES (1);")
        #expect(try db.fetchOne(Int.self, "SELECT count(*) FROM sqlite_master WHERE name = 'b'") == 0)
    }

    @Test("invalid SQL is a SQLiteError with SQLite's message and the SQL")
    func invalidSQL() throws {
        let db = try makeItemsDatabase()
        let error = #expect(throws: SQLiteError.self) {
            try db.execute("UPDATE itemz SET done = 1")
        }
        #expect(error?.code == SQLITE_ERROR)
        #expect(error?.message == "no such table: itemz")
        #expect(error?.sql == "UPDATE itemz SET done = 1")
        #expect(error?.description.contains("SQL: UPDATE itemz SET done = 1") == true)
        #expect(try db.fetchOne(Int.self, "SELECT count(*) FROM items WHERE done") == 1)
    }

    @Test("a wrong number of arguments fails before anything runs")
    func wrongArgumentCount() throws {
        let db = try makeItemsDatabase()
        let tooMany = #expect(throws: SQLiteError.self) {
            try db.execute("UPDATE items SET done = ? WHERE id = ?", [true, 1, 2])
        }
        #expect(tooMany?.code == SQLITE_RANGE)
        #expect(tooMany?.message == "wrong number of arguments: the statement takes 2, 3 given")
        #expect(throws: SQLiteError.self) {
            try db.execute("UPDATE items SET done = ? WHERE id = ?", [true])
        }
        #expect(try db.fetchOne(Int.self, "SELECT count(*) FROM items WHERE done") == 1)
    }

    @Test("named arguments bind by name, and a missing or extra name is an error")
    func namedArguments() throws {
        let db = try makeItemsDatabase()
        try db.execute("UPDATE items SET title = :title WHERE id = :id", named: ["title": "oat milk", "id": 1])
        #expect(try db.fetchOne(String.self, "SELECT title FROM items WHERE id = 1") == "oat milk")
        let missing = #expect(throws: SQLiteError.self) {
            try db.execute("UPDATE items SET title = :title WHERE id = :id", named: ["title": "x"])
        }
        #expect(missing?.message == "missing argument for parameter :id")
        let extra = #expect(throws: SQLiteError.self) {
            try db.execute(
                "UPDATE items SET title = :title WHERE id = :id", named: ["title": "x", "id": 1, "tilte": "y"])
        }
        #expect(extra?.message == "no parameter named :tilte")
        #expect(try db.fetchOne(String.self, "SELECT title FROM items WHERE id = 1") == "oat milk")
    }

    @Test("a file that is not a database fails at open, naming the file")
    func notADatabase() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("notes.txt")
        try Data(String(repeating: "this is not a database\n", count: 100).utf8).write(to: URL(fileURLWithPath: path))
        let error = #expect(throws: SQLiteError.self) { try Database(path: path) }
        #expect(error?.code == SQLITE_NOTADB)
        #expect(error?.path == path)
        #expect(error?.description.contains(path) == true)
        #expect(try String(contentsOfFile: path, encoding: .utf8).hasPrefix("this is not a database"))
    }

    @Test("a missing file opened read-only is an error, and nothing is created")
    func missingReadOnly() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("missing.sqlite")
        let error = #expect(throws: SQLiteError.self) { try Database(path: path, configuration: .readOnly) }
        #expect(error?.code == SQLITE_CANTOPEN)
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test("a write to a read-only database fails and changes nothing")
    func readOnlyWrite() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("ro.sqlite")
        do {
            let db = try Database(path: path)
            try db.execute("CREATE TABLE t(x)")
            try db.execute("INSERT INTO t VALUES (1)")
        }
        let readOnly = try Database(path: path, configuration: .readOnly)
        #expect(readOnly.isReadOnly)
        let error = #expect(throws: SQLiteError.self) { try readOnly.execute("INSERT INTO t VALUES (2)") }
        #expect(error?.code == SQLITE_READONLY)
        #expect(try Database(path: path).fetchAll(Int.self, "SELECT x FROM t") == [1])
    }

    @Test("the error description reads well in a terminal")
    func errorDescription() throws {
        let db = try makeItemsDatabase()
        let error = #expect(throws: SQLiteError.self) { try db.execute("INSERT INTO items(title) VALUES (NULL)") }
        #expect(
            error?.description == """
                SQLite error 19/1299 (constraint failed): NOT NULL constraint failed: items.title \
                (a Double NaN is stored as NULL by SQLite)
                  SQL: INSERT INTO items(title) VALUES (NULL)
                """)
    }
}
