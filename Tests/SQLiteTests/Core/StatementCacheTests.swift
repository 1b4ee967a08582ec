import Testing

@testable import SQLite

@Suite("Statement cache")
struct StatementCacheTests {
    @Test("a repeated query reuses its prepared statement")
    func reuse() throws {
        let db = try makeItemsDatabase()
        let first = try db.cachedStatement("SELECT title FROM items WHERE id = ?")
        _ = try db.fetchOne(String.self, "SELECT title FROM items WHERE id = ?", [1])
        _ = try db.fetchOne(Int.self, "SELECT count(*) FROM items")
        let again = try db.cachedStatement("SELECT title FROM items WHERE id = ?")
        #expect(first === again)
        #expect(try db.fetchOne(String.self, "SELECT title FROM items WHERE id = ?", [2]) == "bread")
    }

    @Test("the cache is bounded and evicts the least recently used statement")
    func bounded() throws {
        var configuration = Database.Configuration()
        configuration.statementCacheCapacity = 4
        let db = try Database(configuration: configuration)
        db.clearStatementCache()
        let kept = try db.cachedStatement("SELECT 0")
        for value in 1...10 {
            _ = try db.fetchOne(Int.self, "SELECT \(value)")
            _ = try db.cachedStatement("SELECT 0")  // keep this one recently used
            #expect(db.cachedStatementCount <= 4)
        }
        #expect(try db.cachedStatement("SELECT 0") === kept)
        #expect(db.cachedStatementCount == 4)
    }

    @Test("a statement held by an open cursor is not handed out again")
    func busyStatement() throws {
        let db = try makeItemsDatabase()
        let cursor = try db.cursor(String.self, "SELECT title FROM items ORDER BY id")
        #expect(try cursor.next() == "milk")
        // The same SQL while the cursor is open gets its own statement and leaves the cursor alone.
        #expect(try db.fetchAll(String.self, "SELECT title FROM items ORDER BY id") == ["milk", "bread", "eggs"])
        #expect(try cursor.next() == "bread")
        #expect(try cursor.next() == "eggs")
        #expect(try cursor.next() == nil)
    }

    @Test("SQL texts that differ only in Unicode normalization are two statements, as SQLite reads them")
    func normalization() throws {
        let db = try Database()
        let composed = String.quotedIdentifier("\u{E9}")
        let decomposed = String.quotedIdentifier("e\u{301}")
        try db.execute("CREATE TABLE \(composed)(x)")
        try db.execute("CREATE TABLE \(decomposed)(x)")
        try db.execute("INSERT INTO \(composed) VALUES (1)")
        try db.execute("INSERT INTO \(decomposed) VALUES (2)")
        #expect(try db.fetchOne(Int.self, "SELECT x FROM \(composed)") == 1)
        #expect(try db.fetchOne(Int.self, "SELECT x FROM \(decomposed)") == 2)
        _ = try db.fetchOne(Int.self, "SELECT 0")
        #expect(try db.fetchOne(Int.self, "SELECT x FROM \(composed)") == 1)
        #expect(try db.fetchOne(Int.self, "SELECT x FROM \(decomposed)") == 2)
        #expect(try db.fetchOne(Int.self, "SELECT count(*) FROM \(decomposed) WHERE 'e\u{301}' = '\u{E9}'") == 0)
        #expect(try db.fetchOne(Int.self, "SELECT count(*) FROM \(decomposed) WHERE '\u{E9}' = '\u{E9}'") == 1)
    }
}
