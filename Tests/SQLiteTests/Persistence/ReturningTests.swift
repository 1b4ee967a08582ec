import Foundation
import Testing

@testable import SQLite

@Suite struct ReturningTests {
    @Test func insertReturningHandsBackDefaults() throws {
        let db = try makeRecordsDatabase()
        var item = ItemRecord(title: "milk")
        let row = try item.insert(db, returning: Column("id"), Column("done"), Column("created_at"))
        #expect(db.lastStatement?.sql.hasSuffix(#" RETURNING "id", "done", "created_at""#) == true)
        #expect(item.id == 1)
        #expect(row.columnNames == ["id", "done", "created_at"])
        #expect(try row["id"] as Int64 == 1)
        let createdAt: Date = try row["created_at"]
        let stored = try db.fetchOne(Date.self, "SELECT created_at FROM items WHERE id = 1")
        #expect(createdAt == stored)
    }

    @Test func returningExpressionsBindTheirValuesAfterTheRecords() throws {
        let db = try makeRecordsDatabase()
        var item = ItemRecord(title: "milk", priority: 4)
        let row = try item.insert(db, returning: Column("priority") >= 3, Column("title") == "bread")
        #expect(row.values == [1, 0])
        item.priority = 1
        let updated = try item.update(db, returning: Column("priority") >= 3)
        #expect(updated.values == [0])
    }

    @Test func upsertAndUpdateReturning() throws {
        let db = try makeRecordsDatabase()
        var item = ItemRecord(title: "milk")
        let inserted = try item.upsert(db, returning: Column("id"))
        #expect(item.id == 1)
        #expect(inserted.values == [1])
        item.title = "oat milk"
        let upserted = try item.upsert(db, returning: Column("title"))
        #expect(upserted.values == ["oat milk"])
        item.done = true
        #expect(try item.update(db, returning: Column("done")).values == [1])
        try item.delete(db)
        #expect(throws: RecordNotFound.self) { try item.update(db, returning: Column("done")) }
    }

    @Test func andFetchSeesDefaultsAndAfterTriggersThatReturningDoesNot() throws {
        let db = try makeRecordsDatabase()
        try db.execute(
            """
            CREATE TRIGGER stamp_priority AFTER INSERT ON items WHEN NEW.priority IS NULL
            BEGIN UPDATE items SET priority = 2 WHERE id = NEW.id; END
            """)
        struct Stored: PersistableRecord, FetchableRow, Equatable {
            static let tableName = "items"
            static let databaseColumns = ["id", "title"]
            var id: Int64?, title: String, priority: Int?, createdAt: String?
            init(title: String) { self.title = title }
            init(row: BorrowedRow) throws {
                id = try row["id"]
                title = try row["title"]
                priority = try row["priority"]
                createdAt = try row["created_at"]
            }
            func encode(to columns: inout ColumnEncoder) {
                columns.encode(id)
                columns.encode(title)
            }
        }
        // RETURNING reports the row as the INSERT itself wrote it, before AFTER triggers ran.
        var returned = Stored(title: "milk")
        let row = try returned.insert(db, returning: Column("priority"))
        #expect(row.values == [.null])

        let fetched = try Stored(title: "bread").insertAndFetch(db)
        #expect(fetched.id == 2)
        #expect(fetched.priority == 2)
        #expect(fetched.createdAt == (try db.fetchOne(String.self, "SELECT created_at FROM items WHERE id = 2")))
        #expect(fetched.createdAt?.isEmpty == false)
    }

    @Test func andFetchForDecodableAndFetchableRecords() throws {
        let db = try makeRecordsDatabase()
        let note = try Note(body: "hello", kind: .text, tags: ["x"], pinned: false).insertAndFetch(db)
        #expect(note.id == 1)
        var changed = note
        changed.pinned = true
        #expect(try changed.updateAndFetch(db) == changed)
        changed.body = "upserted"
        #expect(try changed.upsertAndFetch(db) == changed)

        let member = try Membership(listID: 1, user: "ana", role: "owner").insertAndFetch(db)
        #expect(member == Membership(listID: 1, user: "ana", role: "owner"))
        #expect(throws: RecordNotFound.self) {
            _ = try Membership(listID: 1, user: "zed", role: "x").updateAndFetch(db)
        }
        #expect(!db.isInTransaction)
    }

    @Test func andFetchInsideATransactionJoinsIt() throws {
        let db = try makeRecordsDatabase()
        #expect(throws: ConstraintViolation.self) {
            try db.transaction { db in
                let item = try ItemRecord(title: "milk").insertAndFetch(db)
                #expect(item.id == 1)
                _ = try ItemRecord(title: "milk").insertAndFetch(db)
            }
        }
        #expect(try ItemRecord.fetchCount(db) == 0)
    }
}
