import SQLite
import Testing

@testable import sqlq

@Suite("Result set", .onProcessThreads)
struct ResultSetTests {
    static func database() throws -> Database {
        let db = try Database()
        try db.executeScript(
            """
            CREATE TABLE things(id INTEGER PRIMARY KEY, name TEXT, score REAL, data BLOB);
            INSERT INTO things VALUES (1, 'one', 1.5, x'CAFE'), (2, NULL, -2, NULL), (3, 'three', NULL, x'');
            """)
        return db
    }

    @Test("Every row, with every kind of value, and the column names")
    func fetch() throws {
        let result = try ResultSet.fetch(
            try Self.database(), sql: "SELECT * FROM things WHERE id >= ? ORDER BY id", arguments: [.integer(2)])
        #expect(result.columns == ["id", "name", "score", "data"])
        #expect(
            result.rows == [
                [.integer(2), .null, .real(-2), .null],
                [.integer(3), .text("three"), .null, .blob([])],
            ])
    }

    @Test("No row still has its columns, unlike the placeholder")
    func noRow() throws {
        let result = try ResultSet.fetch(try Self.database(), sql: "SELECT id, name FROM things WHERE 0", arguments: [])
        #expect(result.columns == ["id", "name"])
        #expect(result.rows.isEmpty)
        #expect(result != .empty)
    }

    @Test("Wrong SQL or arguments are SQLite's errors")
    func errors() throws {
        let db = try Self.database()
        #expect(throws: SQLiteError.self) { try ResultSet.fetch(db, sql: "SELECT nope FROM things", arguments: []) }
        #expect(throws: SQLiteError.self) {
            try ResultSet.fetch(db, sql: "SELECT * FROM things WHERE id = ?", arguments: [])
        }
    }

    @Test("A count is one row, one column")
    func count() {
        #expect(ResultSet.count(7) == ResultSet(columns: ["count"], rows: [[.integer(7)]]))
    }
}
