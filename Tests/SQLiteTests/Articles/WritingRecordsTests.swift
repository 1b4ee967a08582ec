import Foundation
import SQLite
import Testing

// The code of the "Writing records" article (Sources/SQLite/SQLite.docc/WritingRecords.md).
// ArticleCodeTests checks that every Swift block of the article appears here.

enum WritingRecordsArticle {
    struct Reminder: Codable, Equatable, PersistableRecord, FetchableRow {
        static let tableName = "reminders"
        var id: Int64?
        var title: String
        var isCompleted = false

        init(title: String) { self.title = title }

        init(row: BorrowedRow) throws {
            id = try row["id"]
            title = try row["title"]
            isCompleted = try row["isCompleted"]
        }

        mutating func didInsert(rowID: Int64) { id = rowID }
    }

    struct Tag: PersistableRecord {
        static let tableName = "tags"
        static let databaseColumns = ["id", "name"]
        var id: Int64?
        var name: String

        func encode(to columns: inout ColumnEncoder) {
            columns.encode(id)
            columns.encode(name)
        }

        mutating func didInsert(rowID: Int64) { id = rowID }
    }

    struct Membership: Codable, PersistableRecord {
        static let tableName = "memberships"
        static let primaryKey = PrimaryKey.columns("listID", "user")
        var listID: Int64
        var user: String
        var role: String
    }
}

@Suite struct WritingRecordsTests {
    typealias Reminder = WritingRecordsArticle.Reminder
    typealias Tag = WritingRecordsArticle.Tag
    typealias Membership = WritingRecordsArticle.Membership

    @Test func article() throws {
        let db = try Database()
        try db.executeScript(
            """
            CREATE TABLE reminders(id INTEGER PRIMARY KEY, title TEXT NOT NULL UNIQUE, isCompleted INTEGER NOT NULL,
                createdAt TEXT NOT NULL DEFAULT (datetime('now')));
            CREATE TABLE tags(id INTEGER PRIMARY KEY, name TEXT NOT NULL);
            CREATE TABLE memberships(listID INTEGER, user TEXT, role TEXT, PRIMARY KEY (listID, user));
            """)

        var reminder = Reminder(title: "Buy milk")
        try reminder.insert(db)  // reminder.id is set
        let before = reminder
        reminder.isCompleted = true
        try reminder.update(db)  // every column but the key
        try reminder.update(db, columns: [Column("isCompleted")])  // only these
        try reminder.updateChanges(db, from: before)  // only what differs
        try reminder.save(db)  // insert when the id is nil, else update (insert if no row has it)
        try reminder.upsert(db)  // INSERT … ON CONFLICT ("id") DO UPDATE SET …

        #expect(reminder.id == 1)
        #expect(try Reminder.all().fetchAll(db) == [reminder])

        let deleted = try reminder.delete(db)  // 1, or 0 when there was no such row

        #expect(deleted == 1)
        #expect(try Reminder.fetchCount(db) == 0)

        for title in ["Buy milk", "Buy bread", "Call mom"] {
            var reminder = Reminder(title: title)
            try reminder.insert(db)
        }
        let completed = try Reminder.all()
            .filter(Column("title").hasPrefix("Buy"))
            .updateAll(db, Column("isCompleted").set(to: true))
        let removed = try Reminder.all().filter(Column("isCompleted") == true).deleteAll(db)

        #expect(completed == 2)
        #expect(removed == 2)
        #expect(try Reminder.all().fetchAll(db).map(\.title) == ["Call mom"])

        var tag = Tag(name: "home")
        try tag.insert(db)

        #expect(tag.id == 1)

        var membership = Membership(listID: 1, user: "ana", role: "owner")
        try membership.insert(db)
        membership.role = "viewer"
        try membership.update(db)

        #expect(try db.fetchOne(String.self, "SELECT role FROM memberships") == "viewer")

        var walk = Reminder(title: "Walk")
        let row = try walk.insert(db, returning: Column("createdAt"))
        let createdAt: String = try row[0]
        let stored = try walk.updateAndFetch(db)  // the whole row, as stored

        #expect(!createdAt.isEmpty)
        #expect(stored == walk)

        var duplicate = Reminder(title: "Call mom")
        do {
            try duplicate.insert(db)
        } catch let violation as ConstraintViolation {
            print(violation)
            // UNIQUE constraint failed in "reminders" on "title": another row has the same value
            //   SQL: INSERT INTO "reminders" ("id", "title", "isCompleted") VALUES (?, ?, ?)
        }

        let violation = #expect(throws: ConstraintViolation.self) { try duplicate.insert(db) }
        #expect(violation?.kind == .unique)
        #expect(violation?.columns == ["title"])
        #expect(duplicate.id == nil)

        var ghost = Reminder(title: "Gone")
        ghost.id = 42
        #expect(throws: RecordNotFound.self) { try ghost.update(db) }
    }
}
