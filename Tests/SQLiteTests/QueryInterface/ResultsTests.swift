import Foundation
import Testing

@testable import SQLite

private struct Item: TableRecord, FetchableRow, Equatable {
    static let tableName = "items"
    var id: Int64
    var title: String
    var priority: Int?
    init(id: Int64, title: String, priority: Int?) {
        self.id = id
        self.title = title
        self.priority = priority
    }
    init(row: BorrowedRow) throws {
        id = try row["id"]
        title = try row["title"]
        priority = try row["priority"]
    }
}

private struct CodableItem: TableRecord, FetchableRow, Decodable, Equatable {
    static let tableName = "items"
    var id: Int64
    var title: String
    var due: Date?
}

/// `items` with rows chosen so each operator selects a distinct subset.
private func makeDatabase() throws -> Database {
    let db = try makeItemsDatabase()  // 1 milk (done 0, priority 3), 2 bread (1, NULL), 3 eggs (0, 1)
    try db.execute("INSERT INTO items(title, done, priority) VALUES (?, ?, ?)", ["50% off_sale", false, 2])
    try db.execute("INSERT INTO items(title, done, priority) VALUES (?, ?, ?)", ["500 offXsale", true, 5])
    try db.execute("INSERT INTO items(title, done, priority) VALUES (?, ?, ?)", ["Milkshake", false, nil])
    return db
}

private func ids(_ request: QueryInterfaceRequest<Item>, _ db: Database) throws -> [Int64] {
    try request.fetchAll(db).map(\.id)
}

@Suite("Query builder: results on real data")
struct ResultsTests {
    @Test("comparisons")
    func comparisons() throws {
        let db = try makeDatabase()
        let all = Item.all().sort(Column("id"))
        #expect(try ids(all.filter(Column("priority") == 3), db) == [1])
        #expect(try ids(all.filter(Column("priority") != 3), db) == [3, 4, 5])
        #expect(try ids(all.filter(Column("priority") < 3), db) == [3, 4])
        #expect(try ids(all.filter(Column("priority") <= 3), db) == [1, 3, 4])
        #expect(try ids(all.filter(Column("priority") > 2), db) == [1, 5])
        #expect(try ids(all.filter(Column("priority") >= 2), db) == [1, 4, 5])
        #expect(try ids(all.filter(Column("priority") == nil), db) == [2, 6])
        #expect(try ids(all.filter(Column("priority") != nil), db) == [1, 3, 4, 5])
        #expect(try ids(all.filter(Column("id") == Column("priority")), db) == [5])
    }

    @Test("AND, OR, NOT with NULLs")
    func logic() throws {
        let db = try makeDatabase()
        let all = Item.all().sort(Column("id"))
        #expect(try ids(all.filter(Column("done") == false && Column("priority") >= 2), db) == [1, 4])
        #expect(try ids(all.filter(Column("done") == true || Column("priority") == 1), db) == [2, 3, 5])
        // NOT of unknown is unknown: rows with a NULL priority match neither side.
        #expect(try ids(all.filter(!(Column("priority") > 2)), db) == [3, 4])
        #expect(try ids(all.filter(!Column("done")), db) == [1, 3, 4, 6])
    }

    @Test("IN, BETWEEN, LIKE, GLOB, contains, hasPrefix")
    func predicates() throws {
        let db = try makeDatabase()
        let all = Item.all().sort(Column("id"))
        #expect(try ids(all.filter(Column("priority").in([1, 5, 9])), db) == [3, 5])
        #expect(try ids(all.filter(Column("priority").in([Int]())), db) == [])
        #expect(try ids(all.filter(Column("priority").between(2, 3)), db) == [1, 4])
        #expect(try ids(all.filter(Column("title").like("mil%")), db) == [1, 6])
        #expect(try ids(all.filter(Column("title").glob("M*")), db) == [6])
        #expect(try ids(all.filter(Column("title").like("50_ off%")), db) == [4, 5])
        // The same text through contains matches the literal % and _ only.
        #expect(try ids(all.filter(Column("title").contains("% off_")), db) == [4])
        #expect(try ids(all.filter(Column("title").contains("0 off")), db) == [5])
        #expect(try ids(all.filter(Column("title").hasPrefix("50%")), db) == [4])
        #expect(try ids(all.filter(Column("title").hasPrefix("MILK")), db) == [1, 6])
    }

    @Test("sorting with null placement, limit and offset")
    func sorting() throws {
        let db = try makeDatabase()
        #expect(try ids(Item.all().sort(Column("priority"), Column("id")), db) == [2, 6, 3, 4, 1, 5])
        #expect(try ids(Item.all().sort(Column("priority").nullsLast, Column("id")), db) == [3, 4, 1, 5, 2, 6])
        #expect(try ids(Item.all().sort(Column("priority").desc, Column("id")), db) == [5, 1, 4, 3, 2, 6])
        #expect(
            try ids(Item.all().sort(Column("priority").desc.nullsFirst, Column("id").desc), db) == [6, 2, 5, 1, 4, 3])
        #expect(try ids(Item.all().sort(Column("id")).limit(2, offset: 3), db) == [4, 5])
    }

    @Test("fetchOne, fetchCount, select, Decodable and plain values")
    func fetching() throws {
        let db = try makeDatabase()
        #expect(
            try Item.all().filter(Column("id") == 3).fetchOne(db)
                == Item(id: 3, title: "eggs", priority: 1))
        #expect(try Item.all().filter(Column("id") == 42).fetchOne(db) == nil)
        #expect(try Item.all().sort(Column("title").desc).fetchOne(db)?.title == "milk")
        #expect(try Item.fetchCount(db) == 6)
        #expect(try Item.filter(Column("done") == true).fetchCount(db) == 2)
        #expect(try Item.all().sort(Column("id")).limit(4, offset: 3).fetchCount(db) == 3)
        let titles = try Item.all().select(Column("title")).sort(Column("id")).limit(2).asRequest(of: String.self)
            .fetchAll(db)
        #expect(titles == ["milk", "bread"])
        let codable = try CodableItem.all().filter(Column("due") != nil).fetchAll(db)
        #expect(codable.map(\.title) == ["milk"])
        #expect(try CodableItem.all().filter(Column("id") == 2).fetchOne(db)?.due == nil)
    }

    @Test("an untyped table gives rows")
    func untypedTable() throws {
        let db = try makeDatabase()
        let rows = try Table("items").select(Column("title"), Column("priority")).filter(Column("priority") > 2).sort(
            Column("id")
        ).fetchAll(db)
        #expect(
            rows == [
                Row(columnNames: ["title", "priority"], values: ["milk", 3]),
                Row(columnNames: ["title", "priority"], values: ["500 offXsale", 5]),
            ])
        #expect(try Table("items").fetchCount(db) == 6)
    }

    @Test("a repeated request shape reuses the cached statement")
    func statementCache() throws {
        let db = try makeDatabase()
        let first = Item.all().filter(Column("id") == 1)
        _ = try first.fetchAll(db)
        let statement = try db.cachedStatement(first.sql)
        let before = db.cachedStatementCount
        #expect(try Item.all().filter(Column("id") == 3).fetchAll(db).map(\.title) == ["eggs"])
        #expect(db.cachedStatementCount == before)
        #expect(try db.cachedStatement(Item.all().filter(Column("id") == 5).sql) === statement)
    }

    @Test("an unknown column fails with SQLite's error and the SQL")
    func sqliteError() throws {
        let db = try makeDatabase()
        // Connections turn off SQLite's legacy double-quoted-string fallback, so an unknown
        // "nope" is an error rather than the text 'nope'; `checkSchema` catches it before SQL runs.
        #expect(throws: SchemaError.self) { try Item.all().filter(Column("nope") == 1).checkSchema(db) }
        let error = #expect(throws: SQLiteError.self) { try Item.all().filter(Column("nope") == 1).fetchAll(db) }
        #expect(error?.message.contains("no such column: nope") == true)
        #expect(error?.sql == #"SELECT * FROM "items" WHERE "nope" = ?"#)
    }
}
