import Foundation
import Testing

@testable import SQLite

@Suite struct ConstraintViolationTests {
    /// Every row of every table, to show that a failed write changed nothing.
    func snapshot(_ db: Database) throws -> [[Row]] {
        try ["lists", "items", "notes", "memberships"].map { try db.fetchAll("SELECT * FROM \($0)") }
    }

    @Test func uniqueNamesTheTableAndColumns() throws {
        let db = try makeRecordsDatabase()
        try ItemRecord(title: "milk").inserted(db)
        let before = try snapshot(db)
        var duplicate = ItemRecord(title: "milk")
        let error = #expect(throws: ConstraintViolation.self) { try duplicate.insert(db) }
        #expect(error?.kind == .unique)
        #expect(error?.table == "items")
        #expect(error?.columns == ["list_id", "title"])
        #expect(
            error?.sql
                == #"INSERT INTO "items" ("id", "list_id", "title", "done", "priority", "due") VALUES (?, ?, ?, ?, ?, ?)"#
        )
        #expect((error?.underlying as? SQLiteError)?.extendedCode == 2067)
        #expect(
            error?.description == """
                UNIQUE constraint failed in "items" on "list_id", "title": another row has the same values
                  SQL: INSERT INTO "items" ("id", "list_id", "title", "done", "priority", "due") VALUES (?, ?, ?, ?, ?, ?)
                """)
        #expect(duplicate.id == nil)
        #expect(try snapshot(db) == before)
    }

    @Test func primaryKey() throws {
        let db = try makeRecordsDatabase()
        try ItemRecord(id: 1, title: "milk").inserted(db)
        let error = #expect(throws: ConstraintViolation.self) { try ItemRecord(id: 1, title: "bread").inserted(db) }
        #expect(error?.kind == .primaryKey)
        #expect(error?.columns == ["id"])
        #expect(
            error?.description.hasPrefix(
                #"PRIMARY KEY constraint failed in "items" on "id": another row has the same key"#) == true)
    }

    @Test func notNull() throws {
        let db = try makeRecordsDatabase()
        struct Untitled: PersistableRecord, Encodable {
            static let tableName = "items"
            var title: String?
        }
        let before = try snapshot(db)
        let error = #expect(throws: ConstraintViolation.self) { try Untitled(title: nil).inserted(db) }
        #expect(error?.kind == .notNull)
        #expect(error?.table == "items")
        #expect(error?.columns == ["title"])
        #expect(error?.sql == #"INSERT INTO "items" ("title") VALUES (?)"#)
        #expect(
            error?.description.hasPrefix(#"NOT NULL constraint failed in "items" on "title": the value is NULL"#)
                == true)
        #expect(try snapshot(db) == before)
    }

    /// SQLite stores NaN as NULL: the violation must say where the NULL came from.
    @Test func aNaNInANotNullColumnIsExplained() throws {
        let db = try Database()
        try db.execute("CREATE TABLE readings(id INTEGER PRIMARY KEY, value REAL NOT NULL)")
        struct Reading: PersistableRecord, Encodable {
            static let tableName = "readings"
            var value: Double
        }
        let insert = #expect(throws: ConstraintViolation.self) { try Reading(value: .nan).inserted(db) }
        #expect(insert?.kind == .notNull)
        #expect(insert?.columns == ["value"])
        #expect(insert?.description.contains("NaN is stored as NULL by SQLite") == true)
        try db.execute("INSERT INTO readings VALUES (1, 2.5)")
        let update = #expect(throws: ConstraintViolation.self) {
            try Table("readings").all().updateAll(db, Column("value").set(to: Double.nan))
        }
        #expect(update?.description.contains("NaN is stored as NULL by SQLite") == true)
        let raw = #expect(throws: SQLiteError.self) {
            try db.execute("INSERT INTO readings VALUES (2, ?)", [.real(.nan)])
        }
        #expect(raw?.description.contains("NaN is stored as NULL by SQLite") == true)
        // In a filter, NaN is NULL too: it matches nothing, rather than failing.
        #expect(try Table("readings").filter(Column("value") != Double.nan).fetchCount(db) == 0)
    }

    @Test func checkNamesTheConstraintOrItsExpression() throws {
        let db = try makeRecordsDatabase()
        let named = #expect(throws: ConstraintViolation.self) {
            try ItemRecord(title: "milk", priority: 9).inserted(db)
        }
        #expect(named?.kind == .check)
        #expect(named?.table == "items")
        #expect(named?.constraint == "priority_range")
        #expect(named?.description.hasPrefix(#"CHECK constraint failed in "items": priority_range"#) == true)

        var item = try ItemRecord(title: "milk").inserted(db)
        let before = try snapshot(db)
        item.title = ""
        let unnamed = #expect(throws: ConstraintViolation.self) { try item.update(db) }
        #expect(unnamed?.kind == .check)
        #expect(unnamed?.constraint == "length(title) > 0")
        #expect(unnamed?.sql?.hasPrefix(#"UPDATE "items" SET"#) == true)
        #expect(try snapshot(db) == before)
    }

    @Test func foreignKeyOnInsertUpdateAndDelete() throws {
        let db = try makeRecordsDatabase()
        let before = try snapshot(db)
        let orphan = #expect(throws: ConstraintViolation.self) {
            try ItemRecord(listID: 42, title: "milk").inserted(db)
        }
        #expect(orphan?.kind == .foreignKey)
        #expect(orphan?.table == "items")
        #expect((orphan?.underlying as? SQLiteError)?.extendedCode == 787)
        #expect(
            orphan?.description.hasPrefix(#"FOREIGN KEY constraint failed in "items": a referenced row does not exist"#)
                == true)
        #expect(try snapshot(db) == before)

        var item = try ItemRecord(listID: 1, title: "milk").inserted(db)
        item.listID = 42
        #expect(throws: ConstraintViolation.self) { try item.update(db) }
        #expect(try ItemRecord.filter(Column("id") == item.id).fetchOne(db)?.listID == 1)

        let referenced = #expect(throws: ConstraintViolation.self) {
            try Table("lists").filter(Column("id") == 1).deleteAll(db)
        }
        #expect(referenced?.kind == .foreignKey)
        #expect(referenced?.table == "lists")
        #expect(try Table("lists").fetchCount(db) == 2)
    }

    @Test func strictTablesReportTheDatatype() throws {
        let db = try makeRecordsDatabase()
        try db.execute("CREATE TABLE counters(id INTEGER PRIMARY KEY, value INTEGER NOT NULL) STRICT")
        struct Counter: PersistableRecord, Encodable {
            static let tableName = "counters"
            var id: Int64?
            var value: String
        }
        let error = #expect(throws: ConstraintViolation.self) { try Counter(value: "many").inserted(db) }
        #expect(error?.kind == .datatype)
        #expect(error?.table == "counters")
        #expect(error?.columns == ["value"])
    }

    @Test func triggerRaiseCarriesItsMessage() throws {
        let db = try makeRecordsDatabase()
        try db.execute(
            """
            CREATE TRIGGER no_done_inserts BEFORE INSERT ON items WHEN NEW.done
            BEGIN SELECT RAISE(ABORT, 'items start undone'); END
            """)
        let error = #expect(throws: ConstraintViolation.self) { try ItemRecord(title: "milk", done: true).inserted(db) }
        #expect(error?.kind == .trigger)
        #expect(error?.constraint == "items start undone")
        #expect(error?.description.hasPrefix(#"a trigger refused the change in "items": items start undone"#) == true)
    }

    @Test func aFailedWriteInsideATransactionUndoesOnlyItselfUntilTheTransactionRollsBack() throws {
        let db = try makeRecordsDatabase()
        let before = try snapshot(db)
        #expect(throws: ConstraintViolation.self) {
            try db.transaction { db in
                try ItemRecord(title: "milk").inserted(db)
                do {
                    try ItemRecord(title: "milk").inserted(db)
                } catch let violation as ConstraintViolation {
                    // The failed statement is undone; the first insert is still there.
                    #expect(try ItemRecord.fetchCount(db) == 1)
                    throw violation
                }
            }
        }
        #expect(try snapshot(db) == before)
    }

    @Test func otherErrorsStaySQLiteErrors() throws {
        let db = try makeRecordsDatabase()
        struct Misnamed: PersistableRecord, Encodable {
            static let tableName = "items"
            var titel: String
        }
        let error = #expect(throws: SQLiteError.self) { try Misnamed(titel: "x").inserted(db) }
        #expect(error?.message == "table items has no column named titel")
        #expect(error?.sql == #"INSERT INTO "items" ("titel") VALUES (?)"#)
    }
}
