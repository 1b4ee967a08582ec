import Foundation
import SharingSQLite
import Testing

// The code of the "Dynamic queries" article (Sources/SharingSQLite/SharingSQLite.docc/DynamicQueries.md).
// ArticleCodeTests in SQLiteTests checks that every Swift block of the article appears here.

enum DynamicQueriesArticle {
    struct Reminder: Codable, Equatable, Sendable, TableRecord {
        static let tableName = "reminders"
        var id: Int64
        var title: String
        var priority: Int
        var isCompleted: Bool
    }

    struct Reminders: FetchKeyRequest {
        var showCompleted = false
        var minimumPriority = 0
        var newestFirst = true

        func fetch(_ db: Database) throws -> [Reminder] {
            var request = Reminder.all().filter(Column("priority") >= minimumPriority)
            if !showCompleted {
                request = request.filter(!Column("isCompleted"))
            }
            return
                try request
                .sort(newestFirst ? Column("id").desc : Column("id").asc)
                .limit(50)
                .fetchAll(db)
        }
    }
}

@Suite struct DynamicQueriesTests {
    typealias Reminder = DynamicQueriesArticle.Reminder
    typealias Reminders = DynamicQueriesArticle.Reminders

    @Test(.timeLimit(.minutes(1))) func article() async throws {
        let db = try DatabaseQueue()
        try await db.write { db in
            try db.execute(
                "CREATE TABLE reminders(id INTEGER PRIMARY KEY, title TEXT, priority INTEGER, isCompleted INTEGER)")
            try db.execute(
                """
                INSERT INTO reminders(title, priority, isCompleted)
                VALUES ('Buy milk', 1, 0), ('File taxes', 3, 0), ('Call mom', 2, 1)
                """)
        }

        @SharedReader(value: []) var reminders: [Reminder]

        try await $reminders.load(.fetch(Reminders(), database: db))
        // reminders: File taxes, Buy milk

        #expect(reminders.map(\.title) == ["File taxes", "Buy milk"])

        try await $reminders.load(.fetch(Reminders(showCompleted: true, minimumPriority: 2), database: db))
        // reminders: Call mom, File taxes

        #expect(reminders.map(\.title) == ["Call mom", "File taxes"])

        try await $reminders.load(.fetch(Reminders(), database: db))
        // the cached rows of the first request, at once

        #expect(reminders.map(\.title) == ["File taxes", "Buy milk"])
        #expect(SharedReaderCache.storeCount(for: db) == 2)

        try await db.write { db in
            try db.execute("INSERT INTO reminders(title, priority, isCompleted) VALUES ('Walk', 1, 0)")
        }
        for await rows in $reminders.values where rows.count == 3 { break }

        #expect(reminders.map(\.title) == ["Walk", "File taxes", "Buy milk"])

        let request = Reminder.all()
            .filter(Column("priority") >= 2 && !Column("isCompleted"))
            .sort(Column("id").desc)
            .limit(10)
        print(request.sql)
        // SELECT * FROM "reminders" WHERE "priority" >= ? AND NOT "isCompleted" ORDER BY "id" DESC LIMIT ?
        print(request.arguments)  // [2, 10]

        #expect(
            request.sql
                == #"SELECT * FROM "reminders" WHERE "priority" >= ? AND NOT "isCompleted" ORDER BY "id" DESC LIMIT ?"#)
        #expect(request.arguments == [2, 10])
    }
}
