import Foundation
import Testing

@testable import SQLite

@Suite("Query builder: schema checks for user-given names")
struct SchemaCheckTests {
    @Test("known names pass and come back as the schema spells them")
    func known() throws {
        let db = try makeItemsDatabase()
        #expect(try db.checkTable("ITEMS") == "items")
        #expect(try db.checkColumn("Title", in: "items") == "title")
        try Table("items").filter(Column("title") == "x" && Column("priority").in([1])).sort(Column("due").desc).select(
            Column("id")
        ).checkSchema(db)
    }

    @Test("generated columns are columns; hidden columns of virtual tables stay hidden, as in SELECT *")
    func generatedAndHiddenColumns() throws {
        let db = try Database(path: ":memory:")
        try db.executeScript(
            """
            CREATE TABLE t(a, c AS (a * 2), d GENERATED ALWAYS AS (a + 1) STORED);
            CREATE VIRTUAL TABLE f USING fts5(body);
            """)
        #expect(try db.columnNames(in: "t") == ["a", "c", "d"])
        #expect(try db.checkColumn("C", in: "t") == "c")
        try Table("t").filter(Column("c") == 2).select(Column("d")).checkSchema(db)
        #expect(try db.columnNames(in: "f") == ["body"])
    }

    /// SQLite matches names ignoring the case of ASCII letters only: `"ä"` does not name `"Ä"`,
    /// and `"e\u{301}"` does not name `"\u{E9}"`.
    @Test("names that differ in non-ASCII case or in Unicode normalization are unknown")
    func nonASCIICase() throws {
        let db = try Database()
        try db.execute(#"CREATE TABLE "Ärger"(id INTEGER PRIMARY KEY, "Äpfel", "\#u{E9}")"#)
        #expect(try db.checkTable("ÄRGER") == "Ärger")
        #expect(try db.checkColumn("ÄPFEL", in: "Ärger") == "Äpfel")
        #expect(throws: SchemaError.self) { try db.checkTable("ärger") }
        #expect(throws: SchemaError.self) { try db.checkColumn("äpfel", in: "Ärger") }
        #expect(throws: SchemaError.self) { try db.checkColumn("e\u{301}", in: "Ärger") }
        #expect(throws: SchemaError.self) { try Table("Ärger").filter(Column("äpfel") == 1).checkSchema(db) }
    }

    @Test("an unknown table lists the tables and suggests the closest")
    func unknownTable() throws {
        let db = try makeItemsDatabase()
        try db.execute("CREATE TABLE lists(id INTEGER PRIMARY KEY)")
        let error = #expect(throws: SchemaError.self) { try db.checkTable("itemz") }
        #expect(error?.kind == .unknownTable)
        #expect(error?.suggestion == "items")
        #expect(error?.available == ["items", "lists"])
        #expect(error?.description == "no such table: \"itemz\"; did you mean \"items\"?\n  tables: items, lists")
        #expect(try #require(#expect(throws: SchemaError.self) { try db.checkTable("zzzzzzzz") }).suggestion == nil)
    }

    @Test("an unknown column names the table, lists its columns and suggests the closest")
    func unknownColumn() throws {
        let db = try makeItemsDatabase()
        let error = #expect(throws: SchemaError.self) {
            try Table("items").filter(Column("titel") == "milk").checkSchema(db)
        }
        #expect(error?.kind == .unknownColumn(table: "items"))
        #expect(error?.suggestion == "title")
        #expect(error?.available == ["id", "title", "done", "priority", "due", "score", "data"])
        #expect(
            error?.description.hasPrefix("no such column: \"titel\" in table \"items\"; did you mean \"title\"?")
                == true)
        #expect(
            try #require(#expect(throws: SchemaError.self) { try db.checkColumn("prioirty", in: "items") }).suggestion
                == "priority")
        #expect(
            try #require(#expect(throws: SchemaError.self) { try Table("items").sort(Column("xyzzy")).checkSchema(db) })
                .suggestion == nil)
    }

    @Test("edit distance counts insertions, deletions, substitutions and swaps")
    func editDistance() {
        func distance(_ a: String, _ b: String) -> Int {
            Database.editDistance(Array(a.unicodeScalars), Array(b.unicodeScalars))
        }
        #expect(distance("", "abc") == 3)
        #expect(distance("kitten", "sitting") == 3)
        #expect(distance("title", "titel") == 1)
        #expect(distance("same", "same") == 0)
        #expect(distance("café", "cafe") == 1)
    }
}
