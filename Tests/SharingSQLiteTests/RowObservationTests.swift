import Foundation
import Testing

@testable import SharingSQLite

/// The ids of one user's messages.
struct Inbox: FetchKeyRequest {
    var user: Int
    func fetch(_ db: Database) throws -> [Int64] {
        try Table("messages").filter(Column("user_id") == user).select(Column("id")).sort(Column("id"))
            .asRequest(of: Int64.self).fetchAll(db)
    }
}

func makeMessagesDatabase() throws -> DatabaseQueue {
    let db = try DatabaseQueue()
    try db.write { db in
        try db.execute("CREATE TABLE messages(id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL, body TEXT NOT NULL)")
        try db.execute("INSERT INTO messages(user_id, body) VALUES (1, 'a'), (2, 'b')")
    }
    return db
}

// Serialized: one test turns row observation off for every database.
@Suite(.serialized) struct RowObservationTests {
    @Test func aWriteForOneUserRefetchesOnlyThatUsersReader() async throws {
        let db = try makeMessagesDatabase()
        let first = SharedReader<[Int64]>(value: [])
        let second = SharedReader<[Int64]>(value: [])
        try await first.load(.fetch(Inbox(user: 1), database: db))
        try await second.load(.fetch(Inbox(user: 2), database: db))
        try await db.write { db in try db.execute("INSERT INTO messages(user_id, body) VALUES (2, 'c')") }
        try await value(of: second) { $0 == [2, 3] }
        try await db.write { db in try db.execute("UPDATE messages SET body = 'd' WHERE id = 3") }
        try await db.write { db in try db.execute("DELETE FROM messages WHERE id = 3") }
        try await value(of: second) { $0 == [2] }
        #expect(first.fetchCount == 1, "writes to another user's rows refetched user 1's inbox")
        // A row that moves from one user to the other changes both.
        try await db.write { db in try db.execute("UPDATE messages SET user_id = 1 WHERE id = 2") }
        try await value(of: first) { $0 == [1, 2] }
        try await value(of: second) { $0 == [] }
    }

    @Test func aFilterThatLooksUpAnotherTableRefetchesOnEitherTable() async throws {
        let db = try DatabaseQueue()
        try await db.write { db in
            try db.execute("CREATE TABLE heroes(id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
            try db.execute(
                "CREATE TABLE responses(id INTEGER PRIMARY KEY, hero_id INTEGER REFERENCES heroes(id), text TEXT)")
            try db.execute("INSERT INTO heroes VALUES (1, 'lina'), (2, 'axe')")
            try db.execute("INSERT INTO responses VALUES (1, 1, 'fire'), (2, 2, 'cut')")
        }
        // The row's own values cannot decide a filter on another table's row: every change to
        // either table may change the result.
        struct ByHeroName: FetchKeyRequest {
            func fetch(_ db: Database) throws -> [String] {
                let heroName = SQLExpression.lookup(
                    SQLExpression.column("name", of: "responses.hero_id"), in: "heroes", as: "responses.hero_id",
                    keys: [(key: "id", value: SQLExpression.column("hero_id", of: "responses"))])
                return try Table("responses").filter(heroName == "lina").select(Column("text")).sort(Column("id"))
                    .asRequest(of: String.self).fetchAll(db)
            }
        }
        let texts = SharedReader<[String]>(value: [])
        try await texts.load(.fetch(ByHeroName(), database: db))
        #expect(texts.wrappedValue == ["fire"])
        try await db.write { db in try db.execute("UPDATE heroes SET name = 'lina' WHERE id = 2") }
        try await value(of: texts) { $0 == ["fire", "cut"] }
        try await db.write { db in try db.execute("UPDATE responses SET hero_id = 1 WHERE id = 2") }
        try await db.write { db in try db.execute("INSERT INTO heroes VALUES (3, 'io')") }
        try await db.write { db in try db.execute("INSERT INTO responses VALUES (3, 3, 'quote')") }
        try await db.write { db in try db.execute("UPDATE heroes SET name = 'lina' WHERE id = 3") }
        try await value(of: texts) { $0 == ["fire", "cut", "quote"] }
    }

    @Test func anUpdateOfColumnsAQueryDoesNotReadRefetchesNothing() async throws {
        let db = try DatabaseQueue()
        try await db.write { db in
            try db.execute("CREATE TABLE todos(id INTEGER PRIMARY KEY, title TEXT NOT NULL, done INTEGER NOT NULL)")
            try db.execute("INSERT INTO todos(title, done) VALUES ('a', 0), ('b', 0)")
        }
        let titles = SharedReader<[String]>(value: [])
        try await titles.load(.fetchAll("SELECT title FROM todos ORDER BY id", database: db))
        let count = SharedReader<Int>(value: -1)
        try await count.load(.fetchOne("SELECT count(*) FROM todos WHERE done", database: db))
        try await db.write { db in try db.execute("UPDATE todos SET done = 1 WHERE id = 1") }
        try await value(of: count) { $0 == 1 }
        #expect(titles.fetchCount == 1, "an update of `done` refetched a query that reads `title` only")
        try await db.write { db in try db.execute("UPDATE todos SET title = 'c' WHERE id = 1") }
        try await value(of: titles) { $0 == ["c", "b"] }
    }

    @Test func filtersSQLiteDecidesOtherwiseStillRefetch() async throws {
        let db = try DatabaseQueue()
        try await db.write { db in
            try db.execute("CREATE TABLE people(id INTEGER PRIMARY KEY, name TEXT COLLATE NOCASE, age TEXT)")
            try db.execute("INSERT INTO people(name, age) VALUES ('Ann', '30')")
        }
        struct Named: FetchKeyRequest {
            func fetch(_ db: Database) throws -> Int {
                try Table("people").filter(Column("name") == "ann").fetchCount(db)
            }
        }
        struct Aged: FetchKeyRequest {
            func fetch(_ db: Database) throws -> Int {
                // A TEXT column compared with an integer: SQLite converts the integer to text.
                try Table("people").filter(Column("age") == 41).fetchCount(db)
            }
        }
        let named = SharedReader<Int>(value: -1)
        try await named.load(.fetch(Named(), database: db))
        let aged = SharedReader<Int>(value: -1)
        try await aged.load(.fetch(Aged(), database: db))
        #expect(named.wrappedValue == 1)
        try await db.write { db in try db.execute("INSERT INTO people(name, age) VALUES ('ANN', '41')") }
        try await value(of: named) { $0 == 2 }
        try await value(of: aged) { $0 == 1 }
    }

    @Test func rowObservationCanBeTurnedOff() async throws {
        SharedReaderCache.observesRows = false
        defer { SharedReaderCache.observesRows = true }
        let db = try makeMessagesDatabase()
        let first = SharedReader<[Int64]>(value: [])
        let second = SharedReader<[Int64]>(value: [])
        try await first.load(.fetch(Inbox(user: 1), database: db))
        try await second.load(.fetch(Inbox(user: 2), database: db))
        try await db.write { db in try db.execute("INSERT INTO messages(user_id, body) VALUES (2, 'c')") }
        try await value(of: second) { $0 == [2, 3] }
        #expect(first.fetchCount == 2, "with row observation off, every reader of the table refetches")
    }
}
