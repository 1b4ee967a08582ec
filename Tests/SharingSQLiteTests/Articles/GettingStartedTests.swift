import Foundation
import SharingSQLite
import Testing

// The code of the "Getting started" article (Sources/SharingSQLite/SharingSQLite.docc/GettingStarted.md).
// ArticleCodeTests in SQLiteTests checks that every Swift block of the article appears here.

enum GettingStartedArticle {
    struct Reminder: Codable, Equatable, Sendable, PersistableRecord {
        static let tableName = "reminders"
        var id: Int64?
        var title: String
        var isCompleted = false

        mutating func didInsert(rowID: Int64) { id = rowID }
    }
}

@Suite struct GettingStartedTests {
    typealias Reminder = GettingStartedArticle.Reminder

    @Test(.timeLimit(.minutes(1))) func article() async throws {
        let path = temporaryDatabasePath()

        let db = try DatabaseQueue(path: path)

        var migrator = Migrator()
        try migrator.registerMigration("create reminders") { db in
            try db.execute(
                """
                CREATE TABLE reminders(
                    id INTEGER PRIMARY KEY,
                    title TEXT NOT NULL,
                    isCompleted INTEGER NOT NULL DEFAULT 0
                )
                """)
        }
        try migrator.migrate(db)

        let milk = try await db.write { db in
            try Reminder(title: "Buy milk").inserted(db)
        }
        // milk.id is the id SQLite chose

        #expect(milk.id == 1)

        @SharedReader(.fetchAll("SELECT * FROM reminders WHERE NOT isCompleted ORDER BY id", database: db))
        var open: [Reminder]

        for await reminders in $open.values where reminders.count == 1 { break }
        print(open.map(\.title))  // ["Buy milk"]

        #expect(open.map(\.title) == ["Buy milk"])

        try await db.write { db in
            var bread = Reminder(title: "Buy bread")
            try bread.insert(db)
        }
        for await reminders in $open.values where reminders.count == 2 { break }

        #expect(open.map(\.title) == ["Buy milk", "Buy bread"])

        try await db.write { db in
            try db.execute("UPDATE reminders SET isCompleted = 1 WHERE title = ?", ["Buy milk"])
        }
        for await reminders in $open.values where reminders.count == 1 { break }
        #expect(open.map(\.title) == ["Buy bread"])
    }
}
