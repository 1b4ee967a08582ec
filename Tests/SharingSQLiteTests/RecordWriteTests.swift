import Foundation
import Testing

@testable import SharingSQLite

/// An `items` row written through the record API, read back by the readers as ``Item``.
struct WritableItem: PersistableRecord, Encodable, Sendable {
    static let tableName = "items"
    var id: Int64?
    var title: String
    mutating func didInsert(rowID: Int64) { id = rowID }
}

@Suite struct RecordWriteTests {
    @Test func sharedReaderSeesRecordWrites() async throws {
        let db = try makeItemsDatabase()
        @SharedReader(.fetchAll("SELECT id, title FROM items ORDER BY id", database: db)) var items: [Item]
        try await value(of: $items) { $0.map(\.title) == ["a", "b"] }

        let inserted = try await db.write { db in
            var item = WritableItem(title: "c")
            try item.insert(db)
            return item
        }
        #expect(inserted.id == 3)
        try await value(of: $items) {
            $0 == [Item(id: 1, title: "a"), Item(id: 2, title: "b"), Item(id: 3, title: "c")]
        }

        try await db.write { db in
            var renamed = inserted
            renamed.title = "c2"
            try renamed.update(db)
        }
        try await value(of: $items) { $0.last == Item(id: 3, title: "c2") }

        try await db.write { db in _ = try WritableItem(id: 1, title: "a").delete(db) }
        try await value(of: $items) { $0.map(\.id) == [2, 3] }
    }

    @Test func sharedReaderSeesRequestWritesAndIgnoresFailedOnes() async throws {
        let db = try makeItemsDatabase()
        let reader = SharedReader<[Item]>(value: [])
        try await reader.load(.fetch(Items(), database: db))
        #expect(reader.wrappedValue.map(\.title) == ["a", "b"])

        try await db.write { db in
            _ = try WritableItem.all().filter(Column("id") == 2).updateAll(db, Column("title").set(to: "B"))
        }
        try await value(of: reader) { $0.map(\.title) == ["a", "B"] }

        // A constraint violation rolls the transaction back: nothing to see, the value stays.
        await #expect(throws: ConstraintViolation.self) {
            try await db.write { db in
                _ = try WritableItem(title: "d").inserted(db)
                var duplicate = WritableItem(id: 1, title: "again")
                try duplicate.insert(db)
            }
        }
        try await db.write { db in _ = try WritableItem.all().filter(Column("title") == "a").deleteAll(db) }
        try await value(of: reader) { $0.map(\.title) == ["B"] }
    }
}
