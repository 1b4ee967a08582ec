import SQLite
import Testing

@testable import sqlq

@Suite("Table query", .onProcessThreads)
struct TableQueryTests {
    static func database() throws -> Database {
        let db = try Database()
        try db.executeScript(
            """
            CREATE TABLE items(id INTEGER PRIMARY KEY, title TEXT NOT NULL, priority INTEGER NOT NULL);
            CREATE INDEX items_by_priority ON items(priority);
            INSERT INTO items(title, priority) VALUES ('a', 1), ('b', 3), ('c', 5);
            """)
        return db
    }

    static let request = Table("items").all().filter(Column("priority") >= 3).sort([Column("priority").desc])

    @Test("The rows, or their count, with the SQL and arguments that ran")
    func fetch() throws {
        let db = try Self.database()
        let rows = TableQuery(request: Self.request, counts: false)
        #expect(rows.sql == #"SELECT * FROM "items" WHERE "priority" >= ? ORDER BY "priority" DESC"#)
        #expect(rows.arguments == [.integer(3)])
        #expect(try rows.fetch(db).rows.map { $0[1] } == [.text("c"), .text("b")])

        let count = TableQuery(request: Self.request, counts: true)
        #expect(count.sql == #"SELECT count(*) FROM "items" WHERE "priority" >= ?"#)
        #expect(count.arguments == [.integer(3)])
        #expect(try count.fetch(db) == .count(2))
    }

    @Test("The explanation is the SQL, its arguments and SQLite's plan, as comments")
    func explanation() throws {
        let db = try Self.database()
        let lines = try TableQuery(request: Self.request, counts: false).explanation(db)
            .split(separator: "\n").map(String.init)
        try #require(lines.count >= 4)
        #expect(lines[0] == #"SELECT * FROM "items" WHERE "priority" >= ? ORDER BY "priority" DESC"#)
        #expect(lines[1] == "-- arguments: 3")
        #expect(lines[2] == "-- plan:")
        #expect(lines[3].hasPrefix("--   SEARCH items USING INDEX items_by_priority"))

        let all = try TableQuery(request: Table("items").all(), counts: false).explanation(db)
        #expect(all.contains("-- arguments: none\n"))
        #expect(all.contains("--   SCAN items"))
    }

    @Test("Equal options make equal keys, so watchers of one query share it")
    func identity() {
        #expect(TableQuery(request: Self.request, counts: false) == TableQuery(request: Self.request, counts: false))
        #expect(TableQuery(request: Self.request, counts: false) != TableQuery(request: Self.request, counts: true))
        #expect(
            TableQuery(request: Self.request, counts: false)
                != TableQuery(request: Table("items").all(), counts: false))
    }
}
