import Foundation
import Testing

@testable import SQLite

@Suite("Query builder: injection attempts are inert")
struct InjectionTests {
    private func makeDatabase() throws -> Database {
        let db = try Database()
        try db.execute(
            #"CREATE TABLE items(id INTEGER PRIMARY KEY, title TEXT, "a""b" TEXT, "x'); DROP TABLE items; --" INTEGER)"#
        )
        try db.execute(
            #"INSERT INTO items(title, "a""b", "x'); DROP TABLE items; --") VALUES (?, ?, ?)"#,
            ["x'); DROP TABLE items; --", "quoted", 7])
        try db.execute(#"INSERT INTO items(title, "a""b") VALUES (?, ?)"#, ["plain", #"it's "fine""#])
        return db
    }

    @Test("hostile values are bound, matched literally, and drop nothing")
    func values() throws {
        let db = try makeDatabase()
        let hostile = "x'); DROP TABLE items; --"
        let request = Table("items").filter(Column("title") == hostile)
        #expect(!request.sql.contains("DROP"))
        #expect(try request.fetchAll(db).map { try $0["id"] as Int } == [1])
        #expect(try Table("items").filter(Column("title").contains("'); DROP")).fetchCount(db) == 1)
        #expect(try Table("items").filter(Column("title").in([hostile, "' OR 1=1 --"])).fetchCount(db) == 1)
        #expect(try Table("items").filter(Column("title") == "' OR '1'='1").fetchCount(db) == 0)
        #expect(try db.tableNames() == ["items"])
        #expect(try Table("items").fetchCount(db) == 2)
    }

    @Test("a column named a\"b that exists is reachable, and hostile names stay names")
    func identifiers() throws {
        let db = try makeDatabase()
        let quoted = Column(#"a"b"#)
        #expect(try Table("items").filter(quoted == "quoted").fetchCount(db) == 1)
        let titles = try Table("items").select(quoted).sort(quoted.desc).fetchAll(db).map { try $0[0] as String }
        #expect(titles == ["quoted", #"it's "fine""#])
        try db.checkColumn(#"a"b"#, in: "items")

        let hostileColumn = Column("x'); DROP TABLE items; --")
        #expect(try Table("items").filter(hostileColumn == 7).fetchCount(db) == 1)

        // A name built to close the quote fails as an unknown column, not as two statements.
        let escape = Column(#"title" = 'plain' OR "1"#)
        // Without a schema check the whole name is still one identifier, one that does not exist.
        let error = #expect(throws: SQLiteError.self) { try Table("items").filter(escape == 1).fetchAll(db) }
        #expect(error?.message == #"no such column: title" = 'plain' OR "1"#)
        #expect(throws: SchemaError.self) { try Table("items").filter(escape == 1).checkSchema(db) }
        #expect(throws: SchemaError.self) { try Table(#"items"; DROP TABLE items; --"#).all().checkSchema(db) }
        #expect(throws: SQLiteError.self) { try Table(#"items"; DROP TABLE items; --"#).all().fetchAll(db) }
        #expect(try db.tableNames() == ["items"])
        #expect(try Table("items").fetchCount(db) == 2)
    }
}
