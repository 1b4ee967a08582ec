import CSQLite
import Testing

@testable import SQLite

@Suite("SQL text")
struct SQLTextTests {
    @Test("SQL holding a NUL byte is refused by every entry point, and none of it runs")
    func nulByte() throws {
        let db = try Database()
        try db.execute("CREATE TABLE t(x)")
        let sql = "SELECT 1\0; DROP TABLE t"
        let attempts: [(String, (Database) throws -> Void)] = [
            ("execute", { try $0.execute(sql) }),
            ("execute named", { try $0.execute(sql, named: [:]) }),
            ("fetchAll rows", { _ = try $0.fetchAll(sql) }),
            ("fetchOne row", { _ = try $0.fetchOne(sql) }),
            ("fetchAll values", { _ = try $0.fetchAll(Int.self, sql) }),
            ("fetchOne value", { _ = try $0.fetchOne(Int.self, sql) }),
            ("cursor", { _ = try $0.cursor(Int.self, sql) }),
            ("makeStatement", { _ = try $0.makeStatement(sql) }),
            ("cachedStatement", { _ = try $0.cachedStatement(sql) }),
            ("cachedStatement bytes", { _ = try $0.cachedStatement(utf8: Array(sql.utf8)) }),
            ("executeScript", { try $0.executeScript("INSERT INTO t VALUES (1);\0 DROP TABLE t") }),
        ]
        for (name, attempt) in attempts {
            let error = #expect(throws: SQLiteError.self, "\(name)") { try attempt(db) }
            #expect(error?.message.contains("NUL") == true, "\(name)")
            #expect(error?.code == SQLITE_MISUSE, "\(name)")
        }
        #expect(try db.fetchOne(Int.self, "SELECT count(*) FROM t") == 0)
    }

    @Test("the error says where the NUL byte is")
    func nulPosition() throws {
        let db = try Database()
        let error = #expect(throws: SQLiteError.self) { try db.execute("SELECT 1\0") }
        #expect(error?.message.contains("byte 8") == true)
    }
}
