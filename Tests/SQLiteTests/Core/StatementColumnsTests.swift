import Testing

@testable import SQLite

/// Another connection changes the schema under a connection's cached statements: SQLite
/// prepares them again by itself, and what they report must follow.
@Suite("Schema changes by another connection")
struct StatementColumnsTests {
    private struct Item: FetchableRow, Decodable, Equatable {
        var id: Int
        var extra: String?
    }

    private struct NamedItem: FetchableRow, Equatable {
        var id: Int
        var extra: String?
        init(row: BorrowedRow) throws {
            id = try row["id"]
            extra = row.hasColumn("extra") ? try row["extra"] : nil
        }
        init(id: Int, extra: String?) {
            self.id = id
            self.extra = extra
        }
    }

    private func makeDatabases() throws -> (TemporaryDirectory, Database, Database) {
        let folder = try TemporaryDirectory()
        let db = try Database(path: folder.file("db.sqlite"))
        try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, title TEXT)")
        try db.execute("INSERT INTO t(title) VALUES ('milk')")
        return (folder, db, try Database(path: folder.file("db.sqlite")))
    }

    @Test("a cached SELECT * returns a column another connection added, and loses one it dropped")
    func rows() throws {
        let (folder, db, other) = try makeDatabases()
        _ = folder
        let sql = "SELECT * FROM t"
        #expect(try db.fetchOne(sql)?.columnNames == ["id", "title"])
        try other.execute("ALTER TABLE t ADD COLUMN extra TEXT DEFAULT 'x'")
        let added = try #require(try db.fetchOne(sql))
        #expect(added.columnNames == ["id", "title", "extra"])
        #expect(added.values == [1, "milk", "x"])
        #expect(try db.cachedStatement(sql).columnCount == 3)
        try other.execute("ALTER TABLE t DROP COLUMN title")
        let rows = try db.fetchAll(sql)
        #expect(rows.map(\.columnNames) == [["id", "extra"]])
        #expect(rows.map(\.values) == [[1, "x"]])
        #expect(try db.cachedStatement(sql).columnNames == ["id", "extra"])
    }

    @Test("records decode by the current columns after another connection alters the table")
    func records() throws {
        let (folder, db, other) = try makeDatabases()
        _ = folder
        let sql = "SELECT * FROM t"
        #expect(try db.fetchAll(Item.self, sql) == [Item(id: 1, extra: nil)])
        #expect(try db.fetchAll(NamedItem.self, sql) == [NamedItem(id: 1, extra: nil)])
        try other.execute("ALTER TABLE t ADD COLUMN extra TEXT DEFAULT 'x'")
        #expect(try db.fetchAll(Item.self, sql) == [Item(id: 1, extra: "x")])
        #expect(try db.fetchAll(NamedItem.self, sql) == [NamedItem(id: 1, extra: "x")])
        // Dropping `title` moves `extra` from index 2 to index 1.
        try other.execute("ALTER TABLE t DROP COLUMN title")
        #expect(try db.fetchAll(Item.self, sql) == [Item(id: 1, extra: "x")])
        #expect(try db.fetchAll(NamedItem.self, sql) == [NamedItem(id: 1, extra: "x")])
        #expect(try db.cursor(Item.self, sql).collect() == [Item(id: 1, extra: "x")])
    }

    @Test("a statement's read region follows the columns it reads now")
    func readRegion() throws {
        let (folder, db, other) = try makeDatabases()
        _ = folder
        let sql = "SELECT * FROM t"
        _ = try db.fetchAll(sql)
        try other.execute("ALTER TABLE t ADD COLUMN extra TEXT")
        _ = try db.fetchAll(sql)
        #expect(try db.cachedStatement(sql).readRegion.tables["t"] == .only(["id", "title", "extra"]))
    }

    @Test("an empty result reports the current columns too")
    func emptyResult() throws {
        let (folder, db, other) = try makeDatabases()
        _ = folder
        let sql = "SELECT * FROM t WHERE id > 100"
        #expect(try db.fetchAll(sql).isEmpty)
        try other.execute("ALTER TABLE t ADD COLUMN extra TEXT")
        #expect(try db.fetchAll(sql).isEmpty)
        #expect(try db.cachedStatement(sql).columnNames == ["id", "title", "extra"])
    }

    /// A view dropped and created again over another table, with the same column names: the
    /// statement that reads it is prepared again, and its read region must follow.
    @Test("a statement's read region follows a view defined again over another table")
    func viewDefinedAgain() throws {
        let (folder, db, other) = try makeDatabases()
        _ = folder
        try db.executeScript(
            """
            CREATE TABLE t1(id INTEGER PRIMARY KEY, user_id INTEGER);
            CREATE TABLE t2(id INTEGER PRIMARY KEY, user_id INTEGER);
            CREATE TABLE t3(id INTEGER PRIMARY KEY, user_id INTEGER);
            CREATE VIEW v AS SELECT id, user_id FROM t1;
            """)
        let sql = "SELECT * FROM v"
        _ = try db.fetchAll(sql)
        #expect(try db.cachedStatement(sql).readRegion.tables.keys.sorted() == ["t1", "v"])
        // On the connection that cached the statement.
        try db.execute("DROP VIEW v")
        try db.execute("CREATE VIEW v AS SELECT id, user_id FROM t2")
        _ = try db.fetchAll(sql)
        #expect(try db.cachedStatement(sql).readRegion.tables.keys.sorted() == ["t2", "v"])
        // On another connection.
        try other.executeScript("DROP VIEW v; CREATE VIEW v AS SELECT id, user_id FROM t3")
        _ = try db.fetchAll(sql)
        #expect(try db.cachedStatement(sql).readRegion.tables.keys.sorted() == ["t3", "v"])
    }

    /// Recording what the statement reads now prepares its SQL once more, which must not replace
    /// the error of the run that SQLite prepared the statement again for.
    @Test("the run that prepared a statement again reports its own error")
    func errorOfTheRunThatPreparedAgain() throws {
        let (folder, db, other) = try makeDatabases()
        _ = folder
        let sql = "INSERT INTO t(id, title) VALUES (?, ?)"
        try db.execute(sql, [2, "x"])
        try other.execute("CREATE INDEX t_title ON t(title)")
        let error = #expect(throws: SQLiteError.self) { try db.execute(sql, [2, "y"]) }
        #expect(error?.code == 19)  // SQLITE_CONSTRAINT
        #expect(error?.message.contains("UNIQUE constraint failed: t.id") == true)
        try other.execute("DROP INDEX t_title")
        #expect(throws: SQLiteError.self) { try db.execute(sql, [2, "y"]) }
        #expect(try db.cachedStatement(sql).readRegion.tables.isEmpty)
    }
}
