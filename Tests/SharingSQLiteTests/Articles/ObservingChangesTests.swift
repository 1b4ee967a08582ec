import Foundation
import SharingSQLite
import Testing

// The code of the "Observing changes" article (Sources/SharingSQLite/SharingSQLite.docc/ObservingChanges.md).
// ArticleCodeTests in SQLiteTests checks that every Swift block of the article appears here.

enum ObservingChangesArticle {
    /// The record of "Getting started".
    struct Reminder: Codable, Equatable, Sendable, PersistableRecord, FetchableRow {
        static let tableName = "reminders"
        var id: Int64?
        var title: String
        var priority = 0
        var isCompleted = false

        mutating func didInsert(rowID: Int64) { id = rowID }
    }

    struct Message: TableRecord, FetchableRow, Equatable, Sendable {
        static let tableName = "messages"
        var id: Int64
        init(row: BorrowedRow) throws { id = try row["id"] }
    }

    struct Inbox: FetchKeyRequest {
        var user: Int
        func fetch(_ db: Database) throws -> [Message] {
            try Message.all().filter(Column("user_id") == user).sort(Column("id").desc).limit(20).fetchAll(db)
        }
    }

    struct OpenCount: FetchKeyRequest {
        func fetch(_ db: Database) throws -> Int {
            try db.fetchOne(Int.self, "SELECT count(*) FROM reminders WHERE NOT isCompleted") ?? 0
        }
    }
}

@Suite struct ObservingChangesTests {
    typealias Reminder = ObservingChangesArticle.Reminder
    typealias OpenCount = ObservingChangesArticle.OpenCount

    @Test(.timeLimit(.minutes(1))) func article() async throws {
        let path = temporaryDatabasePath()
        let db = try DatabasePool(path: path)
        try await db.write { db in
            try db.execute(
                """
                CREATE TABLE reminders(
                    id INTEGER PRIMARY KEY,
                    title TEXT NOT NULL,
                    priority INTEGER NOT NULL DEFAULT 0,
                    isCompleted INTEGER NOT NULL DEFAULT 0
                )
                """)
            try db.execute("CREATE TABLE notes(id INTEGER PRIMARY KEY, text TEXT)")
        }

        @SharedReader(.fetchAll("SELECT * FROM reminders WHERE NOT isCompleted ORDER BY id", database: db))
        var open: [Reminder]

        try await db.write { db in
            try db.execute("INSERT INTO reminders(title) VALUES ('Buy milk')")
        }
        for await reminders in $open.values where reminders.count == 1 { break }

        #expect(open.map(\.title) == ["Buy milk"])
        // The insert may have landed while the first fetch ran, which saw it, and still owe its
        // own refetch: a fresh load runs after that one, so the count starts from a quiet reader.
        try await $open.load()
        let fetchesBefore = $open.fetchCount

        // Reads nothing of `notes`: no refetch.
        try await db.write { db in
            try db.execute("INSERT INTO notes(text) VALUES ('unrelated')")
        }
        // Reads `reminders`: a refetch, but the result is the same, so no new value.
        try await db.write { db in
            try db.execute("INSERT INTO reminders(title, isCompleted) VALUES ('Done already', 1)")
        }

        try await db.write { db in
            try db.execute("INSERT INTO reminders(title) VALUES ('Buy bread')")
        }
        for await reminders in $open.values where reminders.count == 2 { break }
        #expect(open.map(\.title) == ["Buy milk", "Buy bread"])
        // At most one fetch for each of the two commits to reminders.
        #expect($open.fetchCount - fetchesBefore <= 2)

        @SharedReader(wrappedValue: 0, .fetch(OpenCount(), database: db)) var openCount: Int

        for await count in $openCount.values where count == 2 { break }

        let other = try DatabaseQueue(path: path)  // another connection to the same file
        try await other.write { db in
            try db.execute("UPDATE reminders SET isCompleted = 1 WHERE title = 'Buy milk'")
        }
        for await count in $openCount.values where count == 1 { break }

        #expect(openCount == 1)
        for await reminders in $open.values where reminders.count == 1 { break }
        #expect(open.map(\.title) == ["Buy bread"])

    }
}

// In the serialized suite where one test turns row observation off for every database.
extension RowObservationTests {
    @Test(.timeLimit(.minutes(1))) func rowsAndColumns() async throws {
        typealias Inbox = ObservingChangesArticle.Inbox
        let db = try DatabaseQueue()
        try await db.write { db in
            try db.execute("CREATE TABLE messages(id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL)")
            try db.execute("INSERT INTO messages(user_id) VALUES (1), (2)")
        }
        @SharedReader(.fetch(Inbox(user: 1), database: db)) var first: [ObservingChangesArticle.Message]
        @SharedReader(.fetch(Inbox(user: 2), database: db)) var second: [ObservingChangesArticle.Message]
        for await messages in $first.values where messages.count == 1 { break }
        for await messages in $second.values where messages.count == 1 { break }
        // A message for user 2 refetches user 2's inbox, and no other.
        try await db.write { db in try db.execute("INSERT INTO messages(user_id) VALUES (2)") }
        for await messages in $second.values where messages.count == 2 { break }
        #expect($first.fetchCount == 1)
    }
}
