import SharingSQLite

struct Reminder: Codable, Equatable, Sendable, PersistableRecord, FetchableRow {
    static let tableName = "reminders"
    var id: Int64?
    var title: String
    var priority = 0
    var isCompleted = false

    mutating func didInsert(rowID: Int64) { id = rowID }
}

@main
struct RemindersApp {
    static func main() async throws {
        let db = try DatabaseQueue(path: "reminders.sqlite")

        var migrator = Migrator()
        try migrator.registerMigration("create reminders") { db in
            try db.execute(
                """
                CREATE TABLE reminders(
                    id INTEGER PRIMARY KEY,
                    title TEXT NOT NULL,
                    priority INTEGER NOT NULL DEFAULT 0,
                    isCompleted INTEGER NOT NULL DEFAULT 0
                )
                """)
        }
        try migrator.migrate(db)

        try DefaultDatabase.set(db)

        @SharedReader(.fetchAll("SELECT * FROM reminders WHERE NOT isCompleted ORDER BY id"))
        var open: [Reminder]

        let milk = try await db.write { db in
            try Reminder(title: "Buy milk").inserted(db)
        }
        for await reminders in $open.values where reminders.contains(milk) { break }
        print("open:", open.map(\.title))

        try await db.write { db in
            var done = milk
            done.isCompleted = true
            try done.update(db)
        }
        for await reminders in $open.values where !reminders.contains(milk) { break }
        print("open:", open.map(\.title))

        let count = try await db.read { db in
            try db.fetchOne(Int.self, "SELECT count(*) FROM reminders") ?? 0
        }
        print("reminders in the file:", count)
    }
}
