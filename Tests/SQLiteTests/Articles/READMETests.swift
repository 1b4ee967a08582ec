import Foundation
import SQLite
import Testing

// The README's `SQLite` example. ArticleCodeTests checks that the README's blocks appear here.

@Suite struct READMETests {
    @Test func example() throws {
        let db = try Database()  // in-memory; Database(path: "app.sqlite") for a file
        try db.execute(
            "CREATE TABLE items(id INTEGER PRIMARY KEY, title TEXT NOT NULL, done INTEGER NOT NULL DEFAULT 0)")
        try db.execute("INSERT INTO items(title, done) VALUES (?, ?)", ["milk", false])

        let rows: [Row] = try db.fetchAll("SELECT * FROM items")
        let title: String = try rows[0]["title"]
        let count = try db.fetchOne(Int.self, "SELECT count(*) FROM items")  // Int?
        let titles = try db.fetchAll(String.self, "SELECT title FROM items")  // [String]

        #expect(title == "milk")
        #expect(count == 1)
        #expect(titles == ["milk"])
    }
}
