import CSQLite
import Testing

@testable import SQLite

private struct Boom: Error {}

@Suite("Transactions")
struct TransactionTests {
    @Test("a transaction commits when its body returns")
    func commits() throws {
        let db = try makeItemsDatabase()
        let count = try db.transaction { db in
            try db.execute("DELETE FROM items WHERE done")
            return try db.fetchOne(Int.self, "SELECT count(*) FROM items")
        }
        #expect(count == 2)
        #expect(!db.isInTransaction)
        #expect(try db.fetchOne(Int.self, "SELECT count(*) FROM items") == 2)
    }

    @Test("a transaction rolls back everything when its body throws")
    func rollsBack() throws {
        let db = try makeItemsDatabase()
        #expect(throws: Boom.self) {
            try db.transaction { db in
                try db.execute("DELETE FROM items")
                throw Boom()
            }
        }
        #expect(!db.isInTransaction)
        #expect(try db.fetchOne(Int.self, "SELECT count(*) FROM items") == 3)
    }

    @Test("a failed statement inside a transaction rolls back the whole transaction")
    func failedStatement() throws {
        let db = try makeItemsDatabase()
        let error = #expect(throws: SQLiteError.self) {
            try db.transaction(.immediate) { db in
                try db.execute("INSERT INTO items(title) VALUES ('first')")
                try db.execute("UPDATE items SET done = 1")
                try db.execute("INSERT INTO items(title) VALUES (NULL)")
            }
        }
        #expect(error?.code == SQLITE_CONSTRAINT)
        #expect(try db.fetchOne(Int.self, "SELECT count(*) FROM items") == 3)
        #expect(try db.fetchOne(Int.self, "SELECT count(*) FROM items WHERE done") == 1)
    }

    @Test("nested transactions are savepoints: an inner failure undoes only the inner work")
    func nested() throws {
        let db = try makeItemsDatabase()
        try db.transaction { db in
            try db.execute("INSERT INTO items(title) VALUES ('outer')")
            do {
                try db.transaction { db in
                    try db.execute("INSERT INTO items(title) VALUES ('inner')")
                    throw Boom()
                }
            } catch is Boom {}
            try db.transaction { db in
                try db.execute("INSERT INTO items(title) VALUES ('inner kept')")
            }
        }
        #expect(
            try db.fetchAll(String.self, "SELECT title FROM items WHERE id > 3 ORDER BY id") == ["outer", "inner kept"])
    }

    @Test("an outer rollback undoes released savepoints too")
    func outerRollback() throws {
        let db = try makeItemsDatabase()
        #expect(throws: Boom.self) {
            try db.transaction { db in
                try db.savepoint { db in try db.execute("DELETE FROM items") }
                throw Boom()
            }
        }
        #expect(try db.fetchOne(Int.self, "SELECT count(*) FROM items") == 3)
    }
}
