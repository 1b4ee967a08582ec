import Foundation
import Testing

@testable import SQLite

@Suite struct RecordWritingTests {
    @Test func insertSetsTheRowIDAndRoundTrips() throws {
        let db = try makeRecordsDatabase()
        let due = wholeMilliseconds(Date(timeIntervalSince1970: 1_800_000_000.25))
        var milk = ItemRecord(title: "milk", priority: 3, due: due)
        #expect(try milk.insert(db) == 1)
        #expect(milk.id == 1)
        var bread = ItemRecord(listID: nil, title: "bread", done: true)
        try bread.insert(db)
        #expect(bread.id == 2)
        #expect(try ItemRecord.filter(Column("id") == 1).fetchOne(db) == milk)
        #expect(try ItemRecord.filter(Column("id") == 2).fetchOne(db) == bread)
        #expect(try db.fetchOne(String.self, "SELECT due FROM items WHERE id = 1") == "2027-01-15 08:00:00.250")
    }

    @Test func insertWithAnExplicitIDKeepsIt() throws {
        let db = try makeRecordsDatabase()
        let item = try ItemRecord(id: 40, title: "milk").inserted(db)
        #expect(item.id == 40)
        #expect(try ItemRecord.all().fetchAll(db) == [item])
    }

    @Test func updateWritesEveryColumnAndUpdateColumnsOnlyThose() throws {
        let db = try makeRecordsDatabase()
        var item = try ItemRecord(title: "milk", priority: 1).inserted(db)
        item.title = "oat milk"
        item.done = true
        #expect(try item.update(db) == 1)
        #expect(try ItemRecord.filter(Column("id") == item.id).fetchOne(db) == item)

        // Changed behind the record's back: update(columns:) leaves other columns alone.
        try db.execute("UPDATE items SET title = 'soy milk' WHERE id = ?", [try DatabaseValue(item.id)])
        item.priority = 5
        #expect(try item.update(db, columns: [Column("priority"), Column("id")]) == 1)
        let stored = try #require(try ItemRecord.filter(Column("id") == item.id).fetchOne(db))
        #expect(stored.title == "soy milk")
        #expect(stored.priority == 5)
    }

    @Test func updateColumnsRejectsAColumnTheRecordDoesNotHave() throws {
        let db = try makeRecordsDatabase()
        let item = try ItemRecord(title: "milk").inserted(db)
        let error = #expect(throws: SchemaError.self) { try item.update(db, columns: [Column("titel")]) }
        #expect(error?.suggestion == "title")
        #expect(error?.description.contains("no such column: \"titel\"") == true)
    }

    @Test func updateChangesSetsOnlyWhatDiffersAndSkipsNoChange() throws {
        let db = try makeRecordsDatabase()
        let before = try ItemRecord(title: "milk", priority: 1).inserted(db)
        #expect(try before.updateChanges(db, from: before) == 0)

        var after = before
        after.priority = 2
        // Another connection's write to a column the record did not change survives.
        try db.execute("UPDATE items SET title = 'soy milk' WHERE id = ?", [try DatabaseValue(before.id)])
        #expect(try after.updateChanges(db, from: before) == 1)
        #expect(db.lastStatement?.sql == #"UPDATE "items" SET "priority" = ? WHERE "id" = ?"#)
        let stored = try #require(try ItemRecord.filter(Column("id") == before.id).fetchOne(db))
        #expect(stored.priority == 2)
        #expect(stored.title == "soy milk")
    }

    @Test func updateChangesCanMoveTheRowToANewKey() throws {
        let db = try makeRecordsDatabase()
        let before = try ItemRecord(title: "milk").inserted(db)
        var moved = before
        moved.id = 77
        try moved.updateChanges(db, from: before)
        #expect(try ItemRecord.all().fetchAll(db) == [moved])
    }

    @Test func updateOfAMissingRowIsRecordNotFound() throws {
        let db = try makeRecordsDatabase()
        let item = try ItemRecord(title: "milk").inserted(db)
        try db.execute("DELETE FROM items")
        let error = #expect(throws: RecordNotFound.self) { try item.update(db) }
        #expect(error == RecordNotFound(table: "items", columns: ["id"], values: [.integer(item.id!)]))
        #expect(error?.description == #"record not found: no row of "items" has "id" = 1"#)
        #expect(throws: RecordNotFound.self) { try item.update(db, columns: [Column("title")]) }
        var changed = item
        changed.title = "bread"
        #expect(throws: RecordNotFound.self) { try changed.updateChanges(db, from: item) }
        let never = ItemRecord(title: "never inserted")
        let neverError = #expect(throws: RecordNotFound.self) { try never.update(db) }
        #expect(neverError?.description.contains("was never inserted") == true)
        #expect(try ItemRecord.fetchCount(db) == 0)
    }

    @Test func upsertInsertsThenUpdatesTheRowWithTheKey() throws {
        let db = try makeRecordsDatabase()
        var item = ItemRecord(title: "milk")
        #expect(try item.upsert(db) == 1)
        #expect(item.id == 1)
        let other = try ItemRecord(title: "bread").inserted(db)
        item.title = "oat milk"
        #expect(try item.upsert(db) == 1)
        #expect(
            db.lastStatement?.sql == """
                INSERT INTO "items" ("id", "list_id", "title", "done", "priority", "due") VALUES (?, ?, ?, ?, ?, ?) \
                ON CONFLICT ("id") DO UPDATE SET "list_id" = excluded."list_id", "title" = excluded."title", \
                "done" = excluded."done", "priority" = excluded."priority", "due" = excluded."due"
                """)
        #expect(item.id == 1)  // the update branch must not hand over another row's rowid
        #expect(try ItemRecord.all().sort(Column("id")).fetchAll(db) == [item, other])

        var explicit = ItemRecord(id: 9, title: "eggs")
        try explicit.upsert(db)
        #expect(try ItemRecord.filter(Column("id") == 9).fetchOne(db) == explicit)
    }

    @Test func saveInsertsNewRecordsAndUpdatesStoredOnes() throws {
        let db = try makeRecordsDatabase()
        var item = ItemRecord(title: "milk")
        try item.save(db)
        #expect(item.id == 1)
        item.title = "oat milk"
        try item.save(db)
        #expect(try ItemRecord.all().fetchAll(db) == [item])
        // A key whose row is gone: inserted again with that key.
        try db.execute("DELETE FROM items")
        try item.save(db)
        #expect(try ItemRecord.all().fetchAll(db) == [item])
    }

    @Test func failedSaveLeavesTheDatabaseUnchanged() throws {
        let db = try makeRecordsDatabase()
        try ItemRecord(title: "milk").inserted(db)
        var duplicate = ItemRecord(id: 5, title: "milk")  // no row 5: update finds nothing, insert breaks UNIQUE
        let before = try db.fetchAll("SELECT * FROM items")
        #expect(throws: ConstraintViolation.self) { try duplicate.save(db) }
        #expect(try db.fetchAll("SELECT * FROM items") == before)
        #expect(duplicate.id == 5)
    }

    @Test func deleteReturnsWhetherARowWent() throws {
        let db = try makeRecordsDatabase()
        let item = try ItemRecord(title: "milk").inserted(db)
        let kept = try ItemRecord(title: "bread").inserted(db)
        #expect(try item.delete(db) == 1)
        #expect(try item.delete(db) == 0)
        #expect(try ItemRecord.all().fetchAll(db) == [kept])
    }

    @Test func encodableRecordsRoundTripWithJSONEnumsDatesAndBlobs() throws {
        let db = try makeRecordsDatabase()
        var note = Note(
            body: "hello", kind: .checklist, tags: ["a", "b"], pinned: true,
            edited: wholeMilliseconds(Date(timeIntervalSince1970: 1_750_000_000.5)),
            attachment: Data([0, 1, 2]), meta: Note.Meta(source: "import", version: 2))
        try note.insert(db)
        #expect(note.id == 1)
        var bare = Note(body: "bare", kind: .text, tags: [], pinned: false)
        try bare.insert(db)
        #expect(try Note.all().sort(Column("id")).fetchAll(db) == [note, bare])
        #expect(
            try db.fetchOne(Row.self, "SELECT kind, tags, pinned, meta FROM notes WHERE id = 1")
                == Row(
                    columnNames: ["kind", "tags", "pinned", "meta"],
                    values: ["checklist", #"["a","b"]"#, 1, #"{"source":"import","version":2}"#]))
        #expect(
            try db.fetchOne(Row.self, "SELECT edited, attachment, meta FROM notes WHERE id = 2")?.values == [
                .null, .null, .null,
            ])

        note.tags = []
        note.meta = nil
        try note.update(db)
        #expect(try Note.filter(Column("id") == note.id).fetchOne(db) == note)
        bare.body = "saved"
        try bare.save(db)
        try bare.delete(db)
        #expect(try Note.all().fetchAll(db) == [note])
    }

    @Test func compositeKeysWithoutRowID() throws {
        let db = try makeRecordsDatabase()
        var owner = Membership(listID: 1, user: "ana", role: "owner")
        try owner.insert(db)
        try Membership(listID: 1, user: "bo", role: "viewer").inserted(db)
        owner.role = "editor"
        try owner.update(db)
        var moved = Membership(listID: 2, user: "ana", role: "owner")
        try moved.save(db)
        moved.role = "admin"
        try moved.upsert(db)
        let error = #expect(throws: ConstraintViolation.self) {
            try Membership(listID: 1, user: "bo", role: "x").inserted(db)
        }
        #expect(error?.kind == .primaryKey)
        #expect(error?.columns == ["list_id", "user"])
        let stored = try Membership.all().sort(Column("list_id"), Column("user")).fetchAll(db)
        #expect(stored == [owner, Membership(listID: 1, user: "bo", role: "viewer"), moved])
        #expect(try Membership(listID: 1, user: "bo", role: "").delete(db) == 1)
        let missing = #expect(throws: RecordNotFound.self) {
            try Membership(listID: 9, user: "zed", role: "x").update(db)
        }
        #expect(missing?.key == ["list_id": 9, "user": "zed"])
    }

    @Test func recordsMadeOnlyOfTheirKey() throws {
        let db = try makeRecordsDatabase()
        try db.execute("CREATE TABLE tags(name TEXT PRIMARY KEY) WITHOUT ROWID")
        struct Tag: PersistableRecord, FetchableRow, Codable, Equatable {
            static let tableName = "tags"
            static let primaryKey = PrimaryKey.columns("name")
            var name: String
        }
        var tag = Tag(name: "home")
        #expect(try tag.insert(db) == 1)
        #expect(try tag.update(db) == 1)
        #expect(try tag.upsert(db) == 1)
        #expect(try tag.save(db) == 1)
        #expect(try Tag(name: "home").upsertAndFetch(db) == tag)
        #expect(throws: RecordNotFound.self) { try Tag(name: "work").update(db) }
        #expect(try Tag.all().fetchAll(db) == [tag])
    }

    @Test func recordWritesReachChangeObservers() throws {
        let db = try makeRecordsDatabase()
        var seen: [DatabaseChanges] = []
        db.addChangeObserver { seen.append($0) }
        var item = ItemRecord(title: "milk")
        try item.insert(db)
        item.done = true
        try item.update(db)
        try item.delete(db)
        #expect(
            seen == [
                DatabaseChanges(tables: ["items": [1]]),
                DatabaseChanges(tables: ["items": [1]]),
                DatabaseChanges(tables: ["items": [1]]),
            ])
    }
}
