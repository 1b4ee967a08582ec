import PostgreSQL
import PostgreSQLTestServer
import Testing

// The README's `PostgreSQL` example. ArticleCodeTests in SQLiteTests checks that the README's
// blocks appear here.

@Suite(.postgreSQLInstalled, .timeLimit(.minutes(1)))
struct READMETests {
    @Test func example() async throws {
        let configuration = try await TestServer.makeConfiguration()
        let setup = try await PostgreSQLDatabase(configuration)
        try await setup.execute("CREATE TABLE items(id BIGINT PRIMARY KEY, title TEXT NOT NULL, done BOOLEAN NOT NULL)")
        try await setup.execute("INSERT INTO items VALUES (1, 'milk', FALSE), (2, 'bread', TRUE)")
        await setup.close()

        // configuration: .init(address: .host("db.internal", port: 5432), user: "app", database: "app")
        let db = try await PostgreSQLDatabase(configuration)
        try await db.installChangeNotifications(on: ["items"])
        let open = try await db.fetchAll("SELECT id, title FROM items WHERE NOT done")

        #expect(open.map { $0.value(named: "title") } == [.text("milk")])
        await db.close()
    }
}
