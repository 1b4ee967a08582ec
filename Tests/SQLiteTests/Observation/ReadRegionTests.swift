import Testing

@testable import SQLite

@Suite("Read regions")
struct ReadRegionTests {
    private func region(_ sql: String) throws -> DatabaseRegion {
        let db = try Database()
        try db.executeScript(
            """
            CREATE TABLE items(id INTEGER PRIMARY KEY, title TEXT, done INTEGER, list_id INTEGER);
            CREATE TABLE lists(id INTEGER PRIMARY KEY, name TEXT);
            CREATE VIEW open_items AS SELECT id, title FROM items WHERE NOT done;
            """)
        return try db.cachedStatement(sql).readRegion
    }

    @Test("a statement records the columns it reads when it is prepared")
    func columns() throws {
        #expect(try region("SELECT title FROM items WHERE done = 0").description == "items(done, title)")
        #expect(try region("SELECT Title FROM ITEMS").tables == ["items": .only(["title"])])
    }

    @Test("everything absorbs unions, and is not empty")
    func everything() throws {
        let items = try region("SELECT title FROM items")
        #expect(items.union(.everything) == .everything)
        #expect(DatabaseRegion.everything.union(items) == .everything)
        #expect(!DatabaseRegion.everything.isEmpty)
        #expect(DatabaseRegion.everything.description == "everything")
        #expect(DatabaseRegion.everything != DatabaseRegion())
    }

    @Test("count(*) reads the whole table; a join reads both tables; a view reads its tables")
    func wholeTables() throws {
        #expect(try region("SELECT count(*) FROM items").tables["items"] == .all)
        #expect(
            try region("SELECT items.title, lists.name FROM items JOIN lists ON lists.id = items.list_id").tables.keys
                .sorted() == ["items", "lists"])
        #expect(try region("SELECT * FROM open_items").tables.keys.contains("items"))
    }

    @Test("a statement that reads no table has an empty region")
    func empty() throws {
        #expect(try region("SELECT 1 + 1").isEmpty)
    }

    @Test("a union reads the tables of both regions")
    func union() {
        let region = DatabaseRegion(tables: ["items"]).union(DatabaseRegion(tables: ["lists"]))
        #expect(region.tables == ["items": .all, "lists": .all])
    }

    @Test("a recording collects what every statement run inside it read, and nothing outside")
    func recording() throws {
        let db = try Database()
        try db.executeScript(
            """
            CREATE TABLE items(id INTEGER PRIMARY KEY, title TEXT, done INTEGER, list_id INTEGER);
            CREATE TABLE lists(id INTEGER PRIMARY KEY, name TEXT);
            CREATE TABLE tags(name TEXT);
            """)
        let (count, region) = try db.recordingReadRegion { db in
            let open = try Table("items").filter(Column("done") == false).fetchCount(db)
            let lists = try db.fetchOne(Int.self, "SELECT count(*) FROM lists") ?? 0
            return open + lists
        }
        #expect(count == 0)
        #expect(region.tables.keys.sorted() == ["items", "lists"])
        #expect(region.tables["lists"] == .all)
        // The trace is gone afterwards: a later recording sees only its own statements.
        _ = try db.fetchAll("SELECT name FROM tags")
        let ((), inner) = try db.recordingReadRegion { db in _ = try db.fetchAll("SELECT title FROM items") }
        #expect(inner.description == "items(title)")
    }

    @Test("recordings nest: the outer one also sees what the inner one read")
    func nestedRecordings() throws {
        let db = try Database()
        try db.executeScript("CREATE TABLE a(x); CREATE TABLE b(y);")
        let (inner, outer) = try db.recordingReadRegion { db -> DatabaseRegion in
            let (_, inner) = try db.recordingReadRegion { db in try db.fetchAll("SELECT x FROM a") }
            _ = try db.fetchAll("SELECT y FROM b")
            return inner
        }
        #expect(inner.tables.keys.sorted() == ["a"])
        #expect(outer.tables.keys.sorted() == ["a", "b"])
    }

    @Test("a statement prepared outside the cache is still accounted for")
    func uncachedStatement() throws {
        let db = try Database()
        try db.execute("CREATE TABLE items(id INTEGER PRIMARY KEY, title TEXT)")
        let ((), region) = try db.recordingReadRegion { db in
            let statement = try db.makeStatement("SELECT title FROM items")
            while try statement.step() {}
        }
        #expect(region.description == "items(title)")
    }

    /// SQLite folds the case of ASCII letters only when it matches names: `"Ärger"` and
    /// `"ärger"` are two tables, `"Ä"` and `"ä"` two columns, and `"ÄRGER"` names `"Ärger"`.
    @Test("names that differ in the case of non-ASCII letters are other tables and columns")
    func nonASCIICase() throws {
        let db = try Database()
        try db.executeScript(
            """
            CREATE TABLE "Ärger"(id INTEGER PRIMARY KEY, "Ä", "ä");
            CREATE TABLE "ärger"(id INTEGER PRIMARY KEY, b);
            """)
        let upper = try db.cachedStatement(#"SELECT "ä" FROM "ÄRGER""#).readRegion
        #expect(upper.tables == ["Ärger": .only(["ä"])])
        #expect(try db.cachedStatement(#"SELECT "Ä" FROM "Ärger""#).readRegion.tables == ["Ärger": .only(["Ä"])])
        #expect(try db.cachedStatement(#"SELECT b FROM "ärger""#).readRegion.tables == ["ärger": .only(["b"])])
        // A change names its table as the region does, so that the engine matches them.
        #expect(DatabaseChanges(tables: ["ÄRGER": [1]]).changedTables.map { $0 } == ["Ärger"])
        #expect(DatabaseRegion(tables: ["ÄRGER", "ärger"]).tables == ["Ärger": .all, "ärger": .all])
    }
}
