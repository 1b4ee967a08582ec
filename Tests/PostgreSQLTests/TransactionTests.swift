import PostgreSQL
import PostgreSQLTestServer
import SQLite
import Testing

@Suite(.postgreSQLInstalled)
struct TransactionTests {
    struct Failure: Error {}

    @Test func aTransactionCommitsWhenItsBodyReturns() async throws {
        try await TestServer.withDatabase { db in
            try await db.execute("CREATE TABLE items(id INTEGER PRIMARY KEY, title TEXT NOT NULL)")
            let count = try await db.transaction { tx in
                try await tx.execute("INSERT INTO items VALUES (1, 'milk'), (2, 'bread')")
                return try await tx.fetchAll("SELECT id FROM items").count
            }
            #expect(count == 2)
            #expect(try await db.fetchAll("SELECT id FROM items").count == 2)
        }
    }

    @Test func aTransactionRollsBackWhenItsBodyThrows() async throws {
        try await TestServer.withDatabase { db in
            try await db.execute("CREATE TABLE items(id INTEGER PRIMARY KEY)")
            await #expect(throws: Failure.self) {
                try await db.transaction { tx in
                    try await tx.execute("INSERT INTO items VALUES (1)")
                    #expect(try await tx.fetchOne("SELECT count(*) AS n FROM items")?.value(named: "n") == .integer(1))
                    throw Failure()
                }
            }
            #expect(try await db.fetchAll("SELECT id FROM items").isEmpty)
        }
    }

    @Test func aCaughtFailureInsideAbortsTheCommit() async throws {
        try await TestServer.withDatabase { db in
            try await db.execute("CREATE TABLE items(id INTEGER PRIMARY KEY)")
            let error = await #expect(throws: PostgreSQLError.self) {
                try await db.transaction { tx in
                    try await tx.execute("INSERT INTO items VALUES (1)")
                    _ = try? await tx.execute("INSERT INTO items VALUES (1)")
                }
            }
            #expect(error?.kind == .transactionAborted)
            #expect(try await db.fetchAll("SELECT id FROM items").isEmpty)
        }
    }
}
