import Foundation
import SQLite

/// A `notes` table for the full-text search tests, whose rows all rank differently for the
/// searches the tests make, so that "best match first" has one order.
enum NotesDatabase {
    static let schema = """
        CREATE TABLE notes(id INTEGER PRIMARY KEY, title TEXT, body TEXT, list TEXT, archived INTEGER NOT NULL);
        INSERT INTO notes VALUES
            (1, 'Swift concurrency', 'Actors protect their state; tasks run concurrently. Swift actors, Swift tasks.', 'work', 0),
            (2, 'Birds', 'The common swift spends most of its life in the air.', 'home', 0),
            (3, 'Groceries', 'Apples, pears, a swift trip to the market.', 'home', 0),
            (4, 'Swimming', 'Swim lessons on Tuesday', 'home', 0),
            (5, 'Gardening', 'Nothing to see here', 'home', 0),
            (6, 'Switches', 'Switch the lights, swiftly', 'work', 1);
        """

    /// The index of title and body, with its triggers, as the library creates it.
    static let index = FullTextIndex("notes_fts", table: "notes", columns: ["title", "body"], contentRowID: "id")

    /// The notes, with their index unless `indexed` is false.
    static func make(indexed: Bool = true) throws -> TestDatabase {
        try TestDatabase.with(schema + (indexed ? "\n" + index.creationSQL : ""))
    }

    /// The words of `text` as FTS5's default tokenizer reads ASCII text: runs of letters and
    /// digits, lowercased.
    static func words(_ text: String) -> [String] {
        text.lowercased().split { !($0.isLetter || $0.isNumber) }.map(String.init)
    }

    /// The ids of the notes in which each word of `text` starts a word of the title or body,
    /// found by reading every note: what a search for `text` must find.
    static func matching(_ text: String, in database: TestDatabase) throws -> [Int64] {
        let searched = words(text)
        return try database.read { db in
            try db.fetchAll("SELECT id, title, body FROM notes ORDER BY id").filter { row in
                let words = Self.words((try row[1] as String) + " " + (try row[2] as String))
                return searched.allSatisfy { prefix in words.contains { $0.hasPrefix(prefix) } }
            }.map { try $0[0] as Int64 }
        }
    }
}
