import Foundation
import Testing

@testable import SQLite

@Suite struct RequestWritingTests {
    func makeItems(_ db: Database) throws {
        for index in 1...6 {
            try ItemRecord(listID: index % 2 == 0 ? 2 : 1, title: "item \(index)", priority: index % 4).inserted(db)
        }
    }

    func titles(_ db: Database) throws -> [String] {
        try db.fetchAll(String.self, "SELECT title FROM items ORDER BY id")
    }

    @Test func deleteAllHonoursTheFilter() throws {
        let db = try makeRecordsDatabase()
        try makeItems(db)
        #expect(try ItemRecord.all().filter(Column("list_id") == 2).filter(Column("priority") >= 2).deleteAll(db) == 2)
        #expect(db.lastStatement?.sql == #"DELETE FROM "items" WHERE "list_id" = ? AND "priority" >= ?"#)
        #expect(try titles(db) == ["item 1", "item 3", "item 4", "item 5"])
        #expect(try ItemRecord.filter(Column("title") == "nothing").deleteAll(db) == 0)
        #expect(try Table("items").filter(Column("title").hasPrefix("item 1")).deleteAll(db) == 1)
        #expect(try ItemRecord.deleteAll(db) == 3)
        #expect(try titles(db) == [])
    }

    @Test func updateAllHonoursTheFilterAndBindsValues() throws {
        let db = try makeRecordsDatabase()
        try makeItems(db)
        let changed = try ItemRecord.all().filter(Column("list_id") == 1).updateAll(
            db, Column("done").set(to: true), Column("due").set(to: nil))
        #expect(changed == 3)
        #expect(db.lastStatement?.sql == #"UPDATE "items" SET "done" = ?, "due" = ? WHERE "list_id" = ?"#)
        #expect(try db.fetchAll(Int64.self, "SELECT id FROM items WHERE done ORDER BY id") == [1, 3, 5])
        let injected = "x'; DROP TABLE items; --"
        #expect(try ItemRecord.filter(Column("id") == 1).updateAll(db, Column("title").set(to: injected)) == 1)
        #expect(try db.fetchOne(String.self, "SELECT title FROM items WHERE id = 1") == injected)
        #expect(try ItemRecord.updateAll(db, Column("priority").set(to: Column("list_id"))) == 6)
        #expect(try db.fetchAll(Int.self, "SELECT count(*) FROM items WHERE priority = list_id") == [6])
        #expect(try ItemRecord.all().updateAll(db, []) == 0)
    }

    @Test func limitAndOrderChooseTheRowsByRowID() throws {
        let db = try makeRecordsDatabase()
        try makeItems(db)
        let newestTwo = ItemRecord.all().filter(Column("list_id") == 1).sort(Column("id").desc).limit(2)
        #expect(try newestTwo.updateAll(db, Column("done").set(to: true)) == 2)
        #expect(
            db.lastStatement?.sql == """
                UPDATE "items" SET "done" = ? WHERE rowid IN (SELECT "rowid" FROM "items" WHERE "list_id" = ? ORDER BY "id" DESC LIMIT ?)
                """)
        #expect(try db.fetchAll(Int64.self, "SELECT id FROM items WHERE done ORDER BY id") == [3, 5])
        #expect(try ItemRecord.all().sort(Column("title")).limit(2, offset: 1).deleteAll(db) == 2)
        #expect(try titles(db) == ["item 1", "item 4", "item 5", "item 6"])
    }

    @Test func limitOnATableWithoutRowIDIsAClearError() throws {
        let db = try makeRecordsDatabase()
        try Membership(listID: 1, user: "ana", role: "owner").inserted(db)
        let error = #expect(throws: PersistenceError.self) { try Membership.all().limit(1).deleteAll(db) }
        #expect(
            error?.description.hasPrefix(#"cannot limit the rows changed in "memberships", a table without rowid"#)
                == true)
        #expect(try Membership.filter(Column("user") == "ana").deleteAll(db) == 1)
    }

    @Test func constraintViolationLeavesEveryRowUnchanged() throws {
        let db = try makeRecordsDatabase()
        try makeItems(db)
        let before = try db.fetchAll("SELECT * FROM items ORDER BY id")
        // The third row would collide with "item 5" of list 1: the whole statement is undone.
        let error = #expect(throws: ConstraintViolation.self) {
            try ItemRecord.filter(Column("list_id") == 1).updateAll(db, Column("title").set(to: "same"))
        }
        #expect(error?.kind == .unique)
        #expect(error?.columns == ["list_id", "title"])
        #expect(try db.fetchAll("SELECT * FROM items ORDER BY id") == before)
    }
}
