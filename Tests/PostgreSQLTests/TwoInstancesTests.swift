import Foundation
import LiveValueTesting
import PostgreSQL
import PostgreSQLTestServer
import SQLite
import SharingSQLite
import Testing

/// The same request as the `PostgreSQLInstance` executable's.
private struct NoteBodies: FetchKeyRequest {
    func fetch(_ db: any SQLConnection) throws -> [String] {
        try Table("notes").select(Column("body")).sort(Column("id")).asRequest(of: String.self).fetchAll(db)
    }
}

/// Two instances of a service, in two processes, on one database: this test's process and a
/// `PostgreSQLInstance`.
@Suite(.postgreSQLInstalled, .timeLimit(.minutes(1)))
struct TwoInstancesTests {
    @Test func aCommitInOneInstanceReachesTheReadersOfTheOther() async throws {
        let configuration = try await TestServer.makeConfiguration()
        let db = try await PostgreSQLDatabase(configuration)
        defer { Task { [db] in await db.close() } }
        try await db.execute(
            "CREATE TABLE notes(id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, body TEXT NOT NULL)")
        try await db.installChangeNotifications(on: ["notes"])

        let other = try InstanceProcess(database: configuration.database)
        try await other.waitFor("values ")

        // This process commits; the other's reader changes.
        try await db.execute("INSERT INTO notes(body) VALUES ('from-here')")
        try await other.waitFor("values from-here")

        // The other commits; this process's reader changes.
        let bodies = SharedReader(.fetch(NoteBodies(), database: db))
        try await bodies.load()
        try other.send("insert from-there")
        try await other.waitFor("inserted from-there")
        try await value(of: bodies) { $0 == ["from-here", "from-there"] }
        try await other.waitFor("values from-here,from-there")

        #expect(try other.finish() == 0)
    }
}
