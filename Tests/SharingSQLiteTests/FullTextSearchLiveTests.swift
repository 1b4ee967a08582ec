import ChildProcesses
import Foundation
import Testing

@testable import SharingSQLite

private let notesIndex = FullTextIndex("notes_fts", table: "notes", columns: ["title", "body"], contentRowID: "id")

/// The titles of the notes matching `text` as a search box matches it, best first: on the
/// index's own rows, or on the content table through the index.
private struct NoteSearch: FetchKeyRequest {
    var text: String
    var onContentTable: Bool

    func fetch(_ db: Database) throws -> [String] {
        let pattern = try FTS5Pattern(matching: text, mode: .allPrefixes)
        if onContentTable {
            let search = notesIndex.search(pattern)
            return try Table("notes").filter(search).select(Column("title")).sort(search.bm25(), Column("id"))
                .asRequest(of: String.self).fetchAll(db)
        }
        let search = FullTextSearch(pattern, index: "notes_fts")
        return try Table("notes_fts").filter(search).select(Column("title")).sort(search.bm25(), Column("rowid"))
            .asRequest(of: String.self).fetchAll(db)
    }
}

@Suite("Live full-text search")
struct FullTextSearchLiveTests {
    @Test(
        "a search reader follows writes from another connection and from the sqlite3 shell",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3")),
        arguments: [false, true])
    func followsWrites(onContentTable: Bool) async throws {
        let path = temporaryDatabasePath()
        let pool = try DatabasePool(path: path)
        try await pool.write { db in
            try db.execute(
                "CREATE TABLE notes(id INTEGER PRIMARY KEY, title TEXT NOT NULL, body TEXT NOT NULL, pinned INT)")
            try db.execute("INSERT INTO notes VALUES (1, 'groceries', 'apples and pears', 0)")
            try db.create(notesIndex)
        }
        let reader = SharedReader<[String]>(value: ["not loaded"])
        try await reader.load(.fetch(NoteSearch(text: "app", onContentTable: onContentTable), database: pool))
        try await value(of: reader) { $0 == ["groceries"] }

        // Another connection of this process: insert, update of an indexed column, delete.
        let other = try DatabaseQueue(path: path)
        try await other.write { db in try db.execute("INSERT INTO notes VALUES (2, 'apps', 'apps to try', 0)") }
        try await value(of: reader) { $0 == ["apps", "groceries"] }
        try await other.write { db in try db.execute("UPDATE notes SET body = 'pears only' WHERE id = 1") }
        try await value(of: reader) { $0 == ["apps"] }
        try await other.write { db in try db.execute("UPDATE notes SET title = 'apricots' WHERE id = 2") }
        try await value(of: reader) { $0 == ["apricots"] }

        // The sqlite3 shell: insert, update, delete.
        try SQLiteShell.run(path, "INSERT INTO notes VALUES (3, 'shell', 'an apple a day', 0)")
        try await value(of: reader) { $0 == ["apricots", "shell"] || $0 == ["shell", "apricots"] }
        try SQLiteShell.run(path, "UPDATE notes SET body = 'bananas' WHERE id = 3")
        try await value(of: reader) { $0 == ["apricots"] }
        try SQLiteShell.run(path, "DELETE FROM notes WHERE id = 2")
        try await value(of: reader) { $0 == [] }

        // A write to the index alone: rows added behind the triggers' back, then a rebuild.
        try SQLiteShell.run(path, #"DROP TRIGGER "notes_fts_ai"; INSERT INTO notes VALUES (4, 'late', 'applause', 0)"#)
        try await pool.write { db in try db.rebuild(notesIndex) }
        try await value(of: reader) { $0 == ["late"] }
        // The reader always equals a fresh fetch.
        let fresh = try await pool.read { db in try NoteSearch(text: "app", onContentTable: onContentTable).fetch(db) }
        #expect(reader.wrappedValue == fresh)
    }
}

/// The titles of the memos, an FTS5 table with its own content, that match `text`.
private struct MemoSearch: FetchKeyRequest {
    var text: String

    func fetch(_ db: Database) throws -> [String] {
        let search = FullTextSearch(try FTS5Pattern(matching: text), index: "memos")
        return try Table("memos").filter(search).select(Column("title")).sort(Column("rowid"))
            .asRequest(of: String.self).fetchAll(db)
    }
}

extension FullTextSearchLiveTests {
    @Test("a search reader follows writes to the FTS5 table itself on the same writer")
    func followsWritesToTheIndex() async throws {
        let pool = try DatabasePool(path: temporaryDatabasePath())
        try await pool.write { db in
            try db.execute("CREATE VIRTUAL TABLE memos USING fts5(title, body)")
            try db.execute("INSERT INTO memos VALUES ('first', 'hello world')")
        }
        let reader = SharedReader<[String]>(value: ["not loaded"])
        try await reader.load(.fetch(MemoSearch(text: "hello"), database: pool))
        try await value(of: reader) { $0 == ["first"] }
        try await pool.write { db in try db.execute("INSERT INTO memos VALUES ('second', 'hello again')") }
        try await value(of: reader) { $0 == ["first", "second"] }
        try await pool.write { db in try db.execute("UPDATE memos SET body = 'bye' WHERE title = 'first'") }
        try await value(of: reader) { $0 == ["second"] }
        try await pool.write { db in try db.execute("DELETE FROM memos WHERE title = 'second'") }
        try await value(of: reader) { $0 == [] }
    }

    @Test("a search reader on an external-content index follows a rebuild on the same writer")
    func followsARebuild() async throws {
        let pool = try DatabasePool(path: temporaryDatabasePath())
        try await pool.write { db in
            try db.execute("CREATE TABLE notes(id INTEGER PRIMARY KEY, title TEXT NOT NULL, body TEXT NOT NULL)")
            try db.create(notesIndex)
            try db.execute(#"DROP TRIGGER "notes_fts_ai""#)
            try db.execute("INSERT INTO notes VALUES (1, 'late', 'applause')")
        }
        let reader = SharedReader<[String]>(value: ["not loaded"])
        try await reader.load(.fetch(NoteSearch(text: "app", onContentTable: false), database: pool))
        try await value(of: reader) { $0 == [] }
        try await pool.write { db in try db.rebuild(notesIndex) }
        try await value(of: reader) { $0 == ["late"] }
    }
}

extension FullTextSearchLiveTests {
    @Test(
        "randomized: search readers always equal a fresh fetch after random writes", arguments: [1, 2, 3] as [UInt64])
    func randomizedDifferential(seed: UInt64) async throws {
        var generator = SeededGenerator(state: seed)
        let words = ["apple", "apricot", "banana", "cherry", "chestnut", "date", "Apple", "ÄPFEL", "äpfel"]
        func text() -> String {
            (0..<Int.random(in: 0...4, using: &generator)).map { _ in words.randomElement(using: &generator)! }
                .joined(separator: Bool.random(using: &generator) ? " " : "-")
        }
        let pool = try DatabasePool(path: temporaryDatabasePath())
        try await pool.write { db in
            try db.execute(
                "CREATE TABLE notes(id INTEGER PRIMARY KEY, title TEXT NOT NULL, body TEXT NOT NULL, pinned INT)")
            try db.create(notesIndex)
        }
        let searches = (0..<6).map { index in
            NoteSearch(
                text: ["ap", "apple", "ch", "date", "äp", "banana cherry"][index], onContentTable: index % 2 == 0)
        }
        var readers: [SharedReader<[String]>] = []
        for search in searches {
            let reader = SharedReader<[String]>(value: ["not loaded"])
            try await reader.load(.fetch(search, database: pool))
            readers.append(reader)
        }
        for step in 0..<40 {
            let id = Int64.random(in: 1...8, using: &generator)
            let (title, body, pinned) = (text(), text(), Int64.random(in: 0...1, using: &generator))
            let sql: String
            var arguments: [DatabaseValue] = [.integer(id), .text(title), .text(body), .integer(pinned)]
            switch Int.random(in: 0..<6, using: &generator) {
            case 0: sql = "INSERT OR IGNORE INTO notes VALUES (?, ?, ?, ?)"
            case 1:
                sql = "UPDATE notes SET title = ? WHERE id = ?"
                arguments = [.text(title), .integer(id)]
            case 2:
                sql = "UPDATE notes SET pinned = ? WHERE id = ?"
                arguments = [.integer(pinned), .integer(id)]
            case 3:
                sql = "DELETE FROM notes WHERE id = ?"
                arguments = [.integer(id)]
            case 4:
                sql = """
                    INSERT INTO notes VALUES (?, ?, ?, ?)
                    ON CONFLICT(id) DO UPDATE SET body = excluded.body, pinned = excluded.pinned
                    """
            default:
                sql = "UPDATE notes SET body = ? WHERE id = ?"
                arguments = [.text(body), .integer(id)]
            }
            try await pool.write { [arguments] db in try db.execute(sql, arguments) }
            for (search, reader) in zip(searches, readers) {
                let fresh = try await pool.read { db in try search.fetch(db) }
                do {
                    try await value(of: reader) { $0 == fresh }
                } catch {
                    Issue.record(
                        "seed \(seed), step \(step), \(sql): \(search) holds \(reader.wrappedValue), not \(fresh)")
                    throw error
                }
            }
        }
    }
}
