import SQLite
import Testing

@testable import sqlq

@Suite("Result set")
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

    @Test("Rows stream one by one, after the column names")
    func forEachRow() throws {
        var events: [String] = []
        try ResultSet.forEachRow(try Self.database(), sql: "SELECT id, name FROM things ORDER BY id", arguments: []) {
            events.append("columns \($0)")
        } row: { values in
            events.append("row \(values[0])")
        }
        #expect(events == [#"columns ["id", "name"]"#, "row 1", "row 2", "row 3"])
    }

    @Test("An error thrown by the consumer stops the rows and leaves the statement usable")
    func stopping() throws {
        struct Enough: Error {}
        let db = try Self.database()
        var seen = 0
        #expect(throws: Enough.self) {
            try ResultSet.forEachRow(db, sql: "SELECT id FROM things", arguments: []) { _ in
            } row: { _ in
                seen += 1
                throw Enough()
            }
        }
        #expect(seen == 1)
        #expect(try ResultSet.fetch(db, sql: "SELECT id FROM things", arguments: []).rows.count == 3)
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
