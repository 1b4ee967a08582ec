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

private struct ByName: Decodable, Equatable {
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
private struct Irregular: Decodable, Equatable {
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

private final class Derived: Base {
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
private struct Kept: Decodable {
    enum CodingKeys: String, CodingKey { case id, title }
    var id: Int64
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(Int64.self, forKey: .id)
        lastKeptContainer = container
    }
}

private struct OneKey: Decodable, Equatable { var title: String }

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
}
