import PostgreSQL
import PostgreSQLTestServer
import SQLite
import Testing

// The code of the module's landing page (Sources/PostgreSQL/PostgreSQL.docc/PostgreSQL.md).
// ArticleCodeTests checks that every Swift block of the page appears here.

@Suite(.postgreSQLInstalled)
struct PostgreSQLArticleTests {
    @Test func landingPage() async throws {
        let configuration = try await TestServer.makeConfiguration()
        var migrator = PostgreSQLMigrator()
        try migrator.registerMigration(
            "0001_items",
            sql: "CREATE TABLE items(id BIGSERIAL PRIMARY KEY, title TEXT NOT NULL, done BOOLEAN NOT NULL)")

        let db = try await PostgreSQLDatabase(configuration)
        try await migrator.migrate(db)
        try await db.transaction { tx in
            try await tx.execute("INSERT INTO items(title, done) VALUES ($1, $2)", ["milk", 0])
        }
        let open = try await db.fetchAll("SELECT id, title FROM items WHERE done = $1", [0])
        await db.close()

        #expect(open.map { $0.value(named: "title") } == [.text("milk")])
    }
}
