import Foundation
import Testing

@testable import SQLite

private struct Item: FetchableRow, Equatable {
    var id: Int64
    var title: String
    var done: Bool
    var priority: Int?

    init(id: Int64, title: String, done: Bool, priority: Int?) {
        self.id = id
        self.title = title
        self.done = done
        self.priority = priority
    }

    init(row: BorrowedRow) throws {
        id = try row["id"]
        title = try row["title"]
        done = try row["done"]
        priority = try row["priority"]
    }
}

private struct CodableItem: FetchableRow, Decodable, Equatable {
    enum Kind: String, Decodable { case chore, errand }
    var id: Int
    var title: String
    var done: Bool
    var priority: Int?
    var due: Date?
    var score: Double?
}

private struct Both: FetchableRow, Decodable {
    var title: String
    var viaRow: Bool
    init(row: BorrowedRow) throws {
        title = try row[0]
        viaRow = true
    }
    init(from decoder: any Decoder) throws {
        title = "decoded"
        viaRow = false
    }
}

/// A class that is not `final`, which cannot take `Decodable`'s default `init(row:)`.
private class Animal: FetchableRow, Decodable {
    let title: String
    required convenience init(row: BorrowedRow) throws {
        try self.init(from: row.decoder(for: Self.self))
    }
}

private final class Dog: Animal {}

@Suite("Fetching")
struct FetchingTests {
    @Test("rows give access by index and by name, case-insensitively")
    func rows() throws {
        let db = try makeItemsDatabase()
        let rows = try db.fetchAll("SELECT id, title, priority FROM items ORDER BY id")
        #expect(rows.count == 3)
        #expect(rows[0].columnNames == ["id", "title", "priority"])
        #expect(rows[0].value(at: 1) == .text("milk"))
        #expect(try rows[0]["TITLE"] as String == "milk")
        #expect(try rows[1]["priority"] as Int? == nil)
        #expect(rows[2].values == [.integer(3), .text("eggs"), .integer(1)])
        #expect(rows[0].value(named: "missing") == nil)
        #expect(rows[0].description == "[id:1 title:'milk' priority:3]")
    }

    @Test("rows are hashable values")
    func rowsHashable() throws {
        let db = try makeItemsDatabase()
        let first = try db.fetchAll("SELECT done FROM items ORDER BY id")
        #expect(Set(first).count == 2)
        #expect(first[0] == first[2])
        #expect(first[0] == Row(columnNames: ["done"], values: [0]))
        #expect(first[0] != Row(columnNames: ["DONE"], values: [0]))
    }

    @Test("FetchableRow decodes by hand")
    func fetchableRow() throws {
        let db = try makeItemsDatabase()
        let items = try db.fetchAll(Item.self, "SELECT * FROM items WHERE done = ? ORDER BY id", [false])
        #expect(
            items == [
                Item(id: 1, title: "milk", done: false, priority: 3),
                Item(id: 3, title: "eggs", done: false, priority: 1),
            ])
        #expect(try db.fetchOne(Item.self, "SELECT * FROM items WHERE id = ?", [2])?.title == "bread")
        #expect(try db.fetchOne(Item.self, "SELECT * FROM items WHERE id = ?", [99]) == nil)
    }

    @Test("Decodable decodes by coding keys, with dates and optionals")
    func decodable() throws {
        let db = try makeItemsDatabase()
        let items = try db.fetchAll(CodableItem.self, "SELECT * FROM items ORDER BY id")
        #expect(items.map(\.title) == ["milk", "bread", "eggs"])
        #expect(items[0].due == Date(timeIntervalSince1970: 1_767_323_045.678))
        #expect(items[0].score == 1.5)
        #expect(items[1].priority == nil)
        #expect(items[1].due == nil)
        #expect(items[1].done)
        // Columns in another order resolve again for the new statement.
        let reordered = try db.fetchOne(
            CodableItem.self, "SELECT score, due, priority, done, title, id FROM items WHERE id = 1")
        #expect(reordered == items[0])
    }

    @Test("Decodable decodes enums and nested JSON values")
    func decodableNested() throws {
        struct Record: FetchableRow, Decodable, Equatable {
            enum Kind: String, Decodable { case chore, errand }
            struct Meta: Decodable, Equatable { var tags: [String] }
            var kind: Kind
            var meta: Meta
            var tags: [String]
        }
        let db = try Database()
        let record = try db.fetchOne(
            Record.self, "SELECT 'errand' AS kind, ? AS meta, ? AS tags",
            [#"{"tags":["a","b"]}"#, #"["x"]"#])
        #expect(record == Record(kind: .errand, meta: .init(tags: ["a", "b"]), tags: ["x"]))
    }

    @Test("a type that is both FetchableRow and Decodable decodes by hand")
    func bothProtocols() throws {
        let db = try makeItemsDatabase()
        let all = try db.fetchAll(Both.self, "SELECT title FROM items")
        #expect(all.allSatisfy { $0.viaRow })
        #expect(try db.fetchOne(Both.self, "SELECT title FROM items")?.viaRow == true)
    }

    @Test("single values come from the first column")
    func singleValues() throws {
        let db = try makeItemsDatabase()
        #expect(try db.fetchAll(String.self, "SELECT title FROM items ORDER BY title") == ["bread", "eggs", "milk"])
        #expect(try db.fetchAll(Int?.self, "SELECT priority FROM items ORDER BY id") == [3, nil, 1])
        #expect(try db.fetchOne(Int.self, "SELECT count(*) FROM items") == 3)
        #expect(try db.fetchOne(Int.self, "SELECT priority FROM items WHERE id = 2") == nil)
        #expect(try db.fetchOne(Int.self, "SELECT 1 WHERE 0") == nil)
        #expect(
            try db.fetchOne(Date.self, "SELECT due FROM items WHERE id = 1")
                == Date(timeIntervalSince1970: 1_767_323_045.678))
    }

    @Test("NULL into a non-optional is an error naming the column and type")
    func nullIntoNonOptional() throws {
        let db = try makeItemsDatabase()
        struct Strict: FetchableRow {
            var priority: Int
            init(row: BorrowedRow) throws { priority = try row["priority"] }
        }
        let error = #expect(throws: RowDecodingError.self) {
            try db.fetchAll(Strict.self, "SELECT priority FROM items ORDER BY id")
        }
        #expect(error?.column == "priority")
        #expect(error?.reason == .unexpectedNull)
        #expect(
            error?.description == """
                cannot decode column "priority" (index 0) as Int: found NULL
                  SQL: SELECT priority FROM items ORDER BY id
                """)
        let decodable = #expect(throws: RowDecodingError.self) {
            try db.fetchAll(Int.self, "SELECT priority FROM items ORDER BY id")
        }
        #expect(decodable?.expectedType == "Int")
        struct StrictCodable: FetchableRow, Decodable {
            var title: String
            var due: Date
        }
        let codable = #expect(throws: RowDecodingError.self) {
            try db.fetchAll(StrictCodable.self, "SELECT title, due FROM items ORDER BY id")
        }
        #expect(codable?.column == "due")
        #expect(codable?.expectedType == "Date")
    }

    @Test("a type mismatch and a missing column are errors that say so")
    func mismatch() throws {
        let db = try makeItemsDatabase()
        let mismatch = #expect(throws: RowDecodingError.self) {
            try db.fetchAll(Int.self, "SELECT title FROM items")
        }
        #expect(mismatch?.reason == .typeMismatch(found: .text("milk")))
        #expect(mismatch?.description.contains("as Int: found text 'milk'") == true)
        struct Missing: FetchableRow, Decodable { var nope: String }
        let missing = #expect(throws: RowDecodingError.self) {
            try db.fetchAll(Missing.self, "SELECT id, title FROM items")
        }
        #expect(missing?.reason == .columnNotFound(available: ["id", "title"]))
    }

    @Test("a cursor iterates lazily and can stop early")
    func cursor() throws {
        let db = try makeItemsDatabase()
        let cursor = try db.cursor(Item.self, "SELECT * FROM items ORDER BY id")
        #expect(try cursor.next()?.title == "milk")
        #expect(try cursor.collect().map(\.title) == ["bread", "eggs"])
        #expect(try cursor.next() == nil)
        let decodable = try db.cursor(CodableItem.self, "SELECT * FROM items ORDER BY id DESC")
        var titles: [String] = []
        // Cursor.forEach is the API under test.
        // swift-format-ignore: ReplaceForEachWithForLoop
        try decodable.forEach { titles.append($0.title) }
        #expect(titles == ["eggs", "bread", "milk"])
    }

    @Test("a row kept with copy() stays valid after the fetch")
    func copiedRow() throws {
        let db = try makeItemsDatabase()
        struct Keeper: FetchableRow {
            var row: Row
            init(row: BorrowedRow) throws { self.row = row.copy() }
        }
        let kept = try db.fetchAll(Keeper.self, "SELECT title FROM items ORDER BY id")
        #expect(try kept.map { try $0.row["title"] as String } == ["milk", "bread", "eggs"])
    }

    @Test("large result sets decode completely", arguments: [0, 1, 10_000])
    func largeResults(count: Int) throws {
        let db = try Database()
        try db.execute("CREATE TABLE n(i INTEGER)")
        try db.transaction { db in
            for i in 0..<count { try db.execute("INSERT INTO n VALUES (?)", [.integer(Int64(i))]) }
        }
        let values = try db.fetchAll(Int.self, "SELECT i FROM n ORDER BY i")
        #expect(values == Array(0..<count))
    }

    @Test("a Decodable record decodes by its coding keys in every shape of fetch")
    func decodableInEveryShape() throws {
        let db = try makeItemsDatabase()
        let sql = "SELECT * FROM items ORDER BY id"
        let all = try db.fetchAll(CodableItem.self, sql)
        #expect(all.map(\.title) == ["milk", "bread", "eggs"])
        #expect(try db.fetchOne(CodableItem.self, sql) == all.first)
        #expect(try db.cursor(CodableItem.self, sql).collect() == all)
        let statement = try db.cachedStatement(sql)
        #expect(try statement.fetchAll(CodableItem.self) { try CodableItem(row: $0) } == all)
        #expect(try statement.fetchOne(CodableItem.self) { try CodableItem(row: $0) } == all.first)
    }

    @Test("a class that is not final decodes through the row's decoder")
    func nonFinalClass() throws {
        let db = try makeItemsDatabase()
        let animals = try db.fetchAll(Animal.self, "SELECT title FROM items ORDER BY id")
        #expect(animals.map(\.title) == ["milk", "bread", "eggs"])
        let dogs = try db.fetchAll(Dog.self, "SELECT title FROM items ORDER BY id")
        #expect(dogs.map(\.title) == ["milk", "bread", "eggs"])
    }

    @Test("fetchOne of a single value is nil when the value is NULL, on every path")
    func nullSingleValue() throws {
        let db = try makeItemsDatabase()
        let sql = "SELECT priority FROM items WHERE id = 2"
        #expect(try db.fetchOne(Int.self, sql) == nil)
        #expect(try db.fetchOne(Int?.self, sql) == nil)
        #expect(try db.fetchAll(Int?.self, sql) == [nil])
        #expect(throws: RowDecodingError.self) { try db.fetchAll(Int.self, sql) }
        let request = Table("items").filter(Column("id") == 2).select(Column("priority")).asRequest(of: Int.self)
        #expect(try request.fetchOne(db) == nil)
        #expect(try request.fetchOne(db as any SQLConnection) == nil)
    }
}
