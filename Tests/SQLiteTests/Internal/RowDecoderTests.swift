import Foundation
import Testing

@testable import SQLite

/// Coding keys that are not plain values: matched by name, not by bits.
private struct NamedKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

private struct ByName: FetchableRow, Decodable, Equatable {
    var id: Int64
    var title: String
    init(id: Int64, title: String) {
        self.id = id
        self.title = title
    }
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: NamedKey.self)
        id = try container.decode(Int64.self, forKey: NamedKey(stringValue: "id"))
        title = try container.decode(String.self, forKey: NamedKey(stringValue: "title"))
    }
}

/// Reads its keys in an order that depends on the row, and some only on some rows.
private struct Irregular: FetchableRow, Decodable, Equatable {
    enum CodingKeys: String, CodingKey { case id, title, priority }
    var id: Int64
    var title: String
    var priority: Int?
    init(id: Int64, title: String, priority: Int?) {
        self.id = id
        self.title = title
        self.priority = priority
    }
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let id = try container.decode(Int64.self, forKey: .id)
        if id.isMultiple(of: 2) {
            priority = try container.decodeIfPresent(Int.self, forKey: .priority)
            title = try container.decode(String.self, forKey: .title)
        } else {
            title = try container.decode(String.self, forKey: .title)
            priority = container.contains(.priority) ? try container.decode(Int?.self, forKey: .priority) : nil
        }
        self.id = id
    }
}

/// A superclass and a subclass whose synthesized-style keys have the same bit patterns.
private class Base: Decodable {
    enum CodingKeys: CodingKey { case title }
    let title: String
    required init(from decoder: any Decoder) throws {
        title = try decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .title)
    }
}

private final class Derived: Base, FetchableRow {
    enum CodingKeys: CodingKey { case id }
    let id: Int64
    required init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(Int64.self, forKey: .id)
        try super.init(from: container.superDecoder())
    }
}

/// Where `Kept` leaves its keyed container; only the test that decodes `Kept` touches it.
nonisolated(unsafe) private var lastKeptContainer: KeyedDecodingContainer<Kept.CodingKeys>?

/// Keeps its keyed container past `init(from:)`.
private struct Kept: FetchableRow, Decodable {
    enum CodingKeys: String, CodingKey { case id, title }
    var id: Int64
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(Int64.self, forKey: .id)
        lastKeptContainer = container
    }
}

private struct OneKey: FetchableRow, Decodable, Equatable { var title: String }

/// Where `KeepsDecoder` leaves its decoder; only the test that decodes it touches it.
nonisolated(unsafe) private var lastKeptDecoder: (any Decoder)?

/// Keeps the decoder it was handed past `init(from:)`.
private struct KeepsDecoder: FetchableRow, Decodable {
    enum CodingKeys: String, CodingKey { case id }
    var id: Int64
    init(from decoder: any Decoder) throws {
        id = try decoder.container(keyedBy: CodingKeys.self).decode(Int64.self, forKey: .id)
        lastKeptDecoder = decoder
    }
}

/// Two `Decodable` parts of one row, each with its own coding keys.
private struct Parts: FetchableRow, Equatable {
    struct Head: FetchableRow, Decodable, Equatable { var id: Int64 }
    struct Body: FetchableRow, Decodable, Equatable {
        var title: String
        var priority: Int?
    }
    var head: Head
    var body: Body
    init(head: Head, body: Body) {
        self.head = head
        self.body = body
    }
    init(row: BorrowedRow) throws {
        head = try Head(row: row)
        body = try Body(row: row)
    }
}

@Suite("Decodable rows")
struct RowDecoderTests {
    @Test("keys that are not plain values are matched by name on every row")
    func keysByName() throws {
        let db = try makeItemsDatabase()
        let rows = try db.fetchAll(ByName.self, "SELECT title, id FROM items ORDER BY id")
        #expect(rows == [ByName(id: 1, title: "milk"), ByName(id: 2, title: "bread"), ByName(id: 3, title: "eggs")])
    }

    @Test("keys read in another order, or skipped, on some rows still find their columns")
    func irregularOrder() throws {
        let db = try makeItemsDatabase()
        let rows = try db.fetchAll(Irregular.self, "SELECT id, title, priority FROM items ORDER BY id")
        #expect(
            rows == [
                Irregular(id: 1, title: "milk", priority: 3),
                Irregular(id: 2, title: "bread", priority: nil),
                Irregular(id: 3, title: "eggs", priority: 1),
            ])
        let withoutPriority = try db.fetchAll(Irregular.self, "SELECT id, title FROM items ORDER BY id")
        #expect(withoutPriority.map(\.priority) == [nil, nil, nil])
        #expect(withoutPriority.map(\.title) == ["milk", "bread", "eggs"])
    }

    @Test("a subclass and its superclass, with keys of equal bits, decode their own columns")
    func superDecoder() throws {
        let db = try makeItemsDatabase()
        let rows = try db.fetchAll(Derived.self, "SELECT id, title FROM items ORDER BY id")
        #expect(rows.map(\.id) == [1, 2, 3])
        #expect(rows.map(\.title) == ["milk", "bread", "eggs"])
    }

    @Test("a type with a single coding key decodes")
    func singleKey() throws {
        let db = try makeItemsDatabase()
        #expect(
            try db.fetchAll(OneKey.self, "SELECT title FROM items ORDER BY id").map(\.title) == [
                "milk", "bread", "eggs",
            ])
    }

    @Test("the same type decodes from statements whose columns come in other orders")
    func plansPerStatement() throws {
        let db = try makeItemsDatabase()
        let forward = try db.fetchAll(Irregular.self, "SELECT id, title, priority FROM items ORDER BY id")
        let backward = try db.fetchAll(Irregular.self, "SELECT priority, title, id FROM items ORDER BY id")
        #expect(forward == backward)
    }

    @Test("a keyed container kept after the fetch stays usable for what needs no row")
    func keptContainer() throws {
        let db = try makeItemsDatabase()
        do {
            let rows = try db.fetchAll(Kept.self, "SELECT id, title FROM items ORDER BY id")
            #expect(rows.map(\.id) == [1, 2, 3])
        }
        db.clearStatementCache()
        let kept = try #require(lastKeptContainer)
        lastKeptContainer = nil
        #expect(kept.contains(.title))
        #expect(Set(kept.allKeys.map(\.stringValue)) == ["id", "title"])
    }

    @Test("a row decodes into several Decodable types, each reading its own columns, fetch after fetch")
    func severalTypesPerRow() throws {
        let db = try makeItemsDatabase()
        let sql = "SELECT title, priority, id FROM items ORDER BY id"
        let expected = [
            Parts(head: .init(id: 1), body: .init(title: "milk", priority: 3)),
            Parts(head: .init(id: 2), body: .init(title: "bread", priority: nil)),
            Parts(head: .init(id: 3), body: .init(title: "eggs", priority: 1)),
        ]
        #expect(try db.fetchAll(Parts.self, sql) == expected)
        #expect(try db.fetchAll(Parts.self, sql) == expected)
        #expect(try db.fetchAll(Parts.Body.self, sql) == expected.map(\.body))
        #expect(try db.cursor(Parts.self, sql).collect() == expected)
        #expect(try db.fetchOne(Parts.Head.self, sql) == expected[0].head)
    }

    @Test("a decoder kept after the fetch stays usable for what needs no row, and the next fetch works")
    func keptDecoder() throws {
        let db = try makeItemsDatabase()
        let sql = "SELECT id, title FROM items ORDER BY id"
        do {
            let rows = try db.fetchAll(KeepsDecoder.self, sql)
            #expect(rows.map(\.id) == [1, 2, 3])
        }
        #expect(try db.fetchAll(KeepsDecoder.self, sql).map(\.id) == [1, 2, 3])
        weak let statement = try db.cachedStatement(sql)
        db.clearStatementCache()
        #expect(statement != nil, "the kept decoder keeps the statement it reads")
        let kept = try #require(lastKeptDecoder)
        lastKeptDecoder = nil
        let container = try kept.container(keyedBy: KeepsDecoder.CodingKeys.self)
        #expect(container.contains(.id))
        #expect(Set(container.allKeys.map(\.stringValue)) == ["id"])
    }
}
