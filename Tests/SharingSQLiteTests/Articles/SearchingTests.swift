import Foundation
import SharingSQLite
import Testing

// The code of the "Searching" article (Sources/SharingSQLite/SharingSQLite.docc/Searching.md).
// ArticleCodeTests in SQLiteTests checks that every Swift block of the article appears here.

extension FullTextIndex {
    static let notes = FullTextIndex("notes_fts", table: "notes", columns: ["title", "body"], contentRowID: "id")
}

enum SearchingArticle {
    struct NoteSearch: FetchKeyRequest {
        var text: String

        func fetch(_ db: Database) throws -> [String] {
            let search = FullTextIndex.notes.search(try FTS5Pattern(matching: text, mode: .allPrefixes))
            return try Table("notes").filter(search).select(Column("title")).sort(search.bm25())
                .asRequest(of: String.self).fetchAll(db)
        }
    }
}

@Suite struct SearchingTests {
    typealias NoteSearch = SearchingArticle.NoteSearch

    @Test(.timeLimit(.minutes(1))) func article() async throws {
        let pool = try DatabasePool(path: temporaryDatabasePath())

        var migrator = Migrator()
        try migrator.registerMigration(
            "notes",
            sql: """
                CREATE TABLE notes(id INTEGER PRIMARY KEY, title TEXT NOT NULL, body TEXT NOT NULL, archived INT NOT NULL DEFAULT 0);
                INSERT INTO notes(title, body) VALUES
                    ('Swift concurrency', 'Actors protect their state; tasks run concurrently. Swift actors, Swift tasks.'),
                    ('Birds', 'The common swift spends most of its life in the air.'),
                    ('Groceries', 'Apples, pears, a swift trip to the market.');
                """)

        try migrator.registerMigration("search") { db in
            try db.create(.notes)
        }
        try migrator.migrate(pool)

        let pattern = try FTS5Pattern(matching: "swi act", mode: .allPrefixes)
        // pattern.rawPattern == #""swi"* AND "act"*"#
        #expect(pattern.rawPattern == #""swi"* AND "act"*"#)

        do {
            _ = try FTS5Pattern(matching: "  *-  ")
        } catch {
            // error.kind == .noTokens
        }
        #expect(throws: FTS5PatternError(kind: .noTokens, pattern: "  *-  ")) { try FTS5Pattern(matching: "  *-  ") }

        let search = FullTextIndex.notes.search(pattern)
        let titles = try await pool.read { db in
            try Table("notes")
                .filter(search && Column("archived") == false)
                .select(Column("title"))
                .sort(search.bm25())
                .asRequest(of: String.self)
                .fetchAll(db)
        }
        // titles == ["Swift concurrency"]
        #expect(titles == ["Swift concurrency"])

        let birds = FullTextSearch(try FTS5Pattern(matching: "swift"), index: "notes_fts")
        let passages = try await pool.read { db in
            try Table("notes_fts")
                .filter(birds)
                .select(birds.snippet(column: 1, open: "[", close: "]", ellipsis: "…", tokens: 6))
                .sort(birds.bm25(), Column("rowid"))
                .asRequest(of: String.self)
                .fetchAll(db)
        }
        // passages[0] == "…[Swift] actors, [Swift] tasks."
        #expect(passages.first == "…[Swift] actors, [Swift] tasks.")
        #expect(passages.count == 3)

        @SharedReader(wrappedValue: [], .fetch(NoteSearch(text: "mark"), database: pool)) var results: [String]
        try await pool.write { db in
            try db.execute("INSERT INTO notes(title, body) VALUES ('Errands', 'Bookmark the market hours')")
        }
        // results soon == ["Errands", "Groceries"]: the best match first
        try await value(of: $results) { $0 == ["Errands", "Groceries"] }
    }
}
