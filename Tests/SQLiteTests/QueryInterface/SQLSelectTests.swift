import Testing

@testable import SQLite

private struct Item: TableRecord, FetchableRow, Equatable {
    static let tableName = "items"
    var id: Int64
    var title: String
    init(row: BorrowedRow) throws {
        id = try row["id"]
        title = try row["title"]
    }
}

@Suite("Query builder: requests run on a connection")
struct SQLSelectTests {
    @Test("expressions are equal when they render the same SQL and arguments, however they were built")
    func expressionEquality() {
        let inline = Column("a") == 1
        let viaExpression = Column("a").sqlExpression == 1
        let viaFragment = SQLExpression(
            SQLFragment([.identifier("a"), .sql(" = "), .binding(1)]), precedence: .comparison)
        #expect(inline == viaExpression)
        #expect(inline == viaFragment)
        #expect(Set([inline, viaExpression, viaFragment]).count == 1)
        #expect(inline != (Column("a") == 2))
        #expect(inline != (Column("a") >= 1))
        #expect(inline != (Column("b") == 1))
        #expect(Column("a").sqlExpression == SQLExpression(SQLFragment([.identifier("a")]), precedence: .atom))
        #expect(Column("a").sqlExpression != SQLExpression.value("a"))
    }

    @Test("a request renders into the connection's buffer, which grows for long SQL and is reused after")
    func longSQL() throws {
        let db = try makeItemsDatabase()
        let longName = String(repeating: "x", count: 600)
        try db.execute("CREATE TABLE \"\(longName)\"(id INTEGER PRIMARY KEY, title TEXT)")
        try db.execute("INSERT INTO \"\(longName)\"(title) VALUES ('long')")
        let long = try Table(longName).filter(Column("title") == "long").fetchAll(db)
        #expect(long.count == 1)
        #expect(try Item.all().filter(Column("id") == 2).fetchOne(db)?.title == "bread")
        #expect(try Table(longName).all().fetchCount(db) == 1)
    }

    @Test("the arguments of one request never reach the next")
    func argumentsDoNotLeak() throws {
        let db = try makeItemsDatabase()
        #expect(try Item.all().filter(Column("title") == "eggs").fetchAll(db).map(\.id) == [3])
        #expect(try Item.all().fetchAll(db).count == 3)
        #expect(try Item.all().filter(Column("id") > 1).limit(1).fetchAll(db).map(\.id) == [2])
        #expect(try Item.all().filter(Column("title") == "milk").fetchOne(db)?.id == 1)
    }

    @Test("a quoted table name runs through the fetch path")
    func quotedIdentifier() throws {
        let db = try Database()
        try db.execute(#"CREATE TABLE "a""b"(id INTEGER PRIMARY KEY, "c""d" TEXT)"#)
        try db.execute(#"INSERT INTO "a""b"("c""d") VALUES ('x')"#)
        let rows = try Table(#"a"b"#).filter(Column(#"c"d"#) == "x").fetchAll(db)
        #expect(rows.map { $0.value(at: 1) } == [.text("x")])
    }

    @Test("statements are found by their SQL bytes: equal bytes share one, other bytes of the same length do not")
    func statementsByBytes() throws {
        let db = try makeItemsDatabase()
        let first = try db.cachedStatement(utf8: Array("SELECT 1".utf8))
        #expect(try db.cachedStatement(utf8: Array("SELECT 1".utf8)) === first)
        let other = try db.cachedStatement(utf8: Array("SELECT 2".utf8))
        #expect(other !== first)
        #expect(other.sql == "SELECT 2")
        #expect(try db.cachedStatement("SELECT 1") === first)
        // A request and the same SQL written by hand share one statement.
        let request = Item.all().filter(Column("id") == 1)
        _ = try request.fetchOne(db)
        #expect(
            try db.cachedStatement(request.render(.one).sql)
                === db.cachedStatement(utf8: Array(request.render(.one).sql.utf8)))
    }
}
