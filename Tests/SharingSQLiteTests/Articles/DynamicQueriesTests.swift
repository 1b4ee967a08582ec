import Foundation
import SharingSQLite
import Testing

// The code of the "Dynamic queries" article (Sources/SharingSQLite/SharingSQLite.docc/DynamicQueries.md),
// which continues "Getting started": it runs on the file that article's program leaves.
// ArticleCodeTests in SQLiteTests checks that every Swift block of the article appears here.

enum DynamicQueriesArticle {
    /// The record of "Getting started", as its program declares it.
    struct Reminder: Codable, Equatable, Sendable, PersistableRecord, FetchableRow {
        static let tableName = "reminders"
        var id: Int64?
        var title: String
        var priority = 0
        var isCompleted = false

        mutating func didInsert(rowID: Int64) { id = rowID }
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
        // The file "Getting started" leaves: its program, run once.
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let run = try runProgram("GettingStartedExample", in: folder)
        try #require(run.status == 0, "\(run.errors)")
        let db = try DatabaseQueue(path: folder.appendingPathComponent("reminders.sqlite").path)

        try await db.write { db in
            try Reminder(title: "File taxes", priority: 3).inserted(db)
            try Reminder(title: "Call mom", priority: 2, isCompleted: true).inserted(db)
            try Reminder(title: "Water plants", priority: 1).inserted(db)
        }

        let table = try await db.read { db in
            try db.fetchAll("SELECT id, title, priority, isCompleted FROM reminders ORDER BY id")
        }
        let described = try table.map { row in
            "\(try row[0] as Int64) \(try row[1] as String) \(try row[2] as Int) \(try row[3] as Int)"
        }
        #expect(described == ["1 Buy milk 0 1", "2 File taxes 3 0", "3 Call mom 2 1", "4 Water plants 1 0"])

        @SharedReader(value: []) var reminders: [Reminder]

        try await $reminders.load(.fetch(Reminders(), database: db))
        // reminders: Water plants, File taxes

        #expect(reminders.map(\.title) == ["Water plants", "File taxes"])

        try await $reminders.load(.fetch(Reminders(showCompleted: true, minimumPriority: 2), database: db))
        // reminders: Call mom, File taxes

        #expect(reminders.map(\.title) == ["Call mom", "File taxes"])

        try await $reminders.load(.fetch(Reminders(), database: db))
        // the cached rows of the first request, at once

        #expect(reminders.map(\.title) == ["Water plants", "File taxes"])
        #expect(SharedReaderCache.storeCount(for: db) == 2)

        let reader = $reminders
        let watcher = Task {
            for await rows in reader.values where rows.count == 3 { return rows.map(\.title) }
            return []
        }

        try await db.write { db in
            try Reminder(title: "Walk the dog", priority: 1).inserted(db)
        }
        print(await watcher.value)  // ["Walk the dog", "Water plants", "File taxes"]

        #expect(await watcher.value == ["Walk the dog", "Water plants", "File taxes"])
        #expect(reminders.map(\.title) == ["Walk the dog", "Water plants", "File taxes"])

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

    /// The record is the one "Getting started" declares, word for word.
    @Test func theRecordIsGettingStartedsOwn() throws {
        let source = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
        let program = try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("Examples/GettingStarted/RemindersApp.swift"),
            encoding: .utf8)
        func record(in text: String) throws -> [String] {
            let lines = text.components(separatedBy: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            let start = try #require(lines.firstIndex { $0.hasPrefix("struct Reminder: ") })
            let end = try #require(lines[start...].firstIndex { $0 == "}" })
            return Array(lines[start...end])
        }
        #expect(try record(in: source) == record(in: program))
    }
}
