import LiveValueTesting
import PostgreSQLTestServer
import SQLite
import SharingSQLite
import Testing

@testable import PostgreSQL

/// Live values through a server restart and dropped connections: readers report the failure,
/// keep their last value, and recover once the server is back, equal to a fresh fetch.
@Suite(.postgreSQLInstalled, .timeLimit(.minutes(2)))
struct LiveRecoveryTests {
    private static let count = "SELECT count(*) FROM notes"

    private static func prepare(_ configuration: PostgreSQLDatabase.Configuration) async throws {
        let db = try await PostgreSQLDatabase(configuration)
        do {
            try await db.execute(
                "CREATE TABLE notes(id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, body TEXT NOT NULL)")
            try await db.installChangeNotifications(on: ["notes"])
        } catch {
            await db.close()
            throw error
        }
        await db.close()
    }

    /// Inserts `n` notes on a connection of its own.
    private static func insert(_ n: Int, _ configuration: PostgreSQLDatabase.Configuration) async throws {
        let db = try await PostgreSQLDatabase(configuration)
        do {
            for index in 0..<n { try await db.execute("INSERT INTO notes(body) VALUES ($1)", [.text("\(index)")]) }
        } catch {
            await db.close()
            throw error
        }
        await db.close()
    }

    private static func freshCount(_ configuration: PostgreSQLDatabase.Configuration) async throws -> Int {
        let db = try await PostgreSQLDatabase(configuration)
        let row = try await db.fetchOne(count)
        await db.close()
        return try #require(row)[0]
    }

    @Test func readersRecoverFromAServerRestart() async throws {
        try await TestCluster.with { cluster in
            let configuration = try await cluster.makeConfiguration()
            try await Self.prepare(configuration)
            let db = try await PostgreSQLDatabase(configuration)
            @SharedReader(wrappedValue: -1, .fetchOne(Self.count, database: db)) var count: Int
            await db.liveEngine.source.untilListening()
            try await Self.insert(3, configuration)
            try await value(of: $count) { $0 == 3 }

            try await cluster.stop()
            try await eventually($count) { $0.loadError != nil }
            let error = try #require($count.loadError as? PostgreSQLError)
            #expect([.connectionClosed, .connectionFailed, .server].contains(error.kind), "\(error)")
            #expect(count == 3, "the last good value stays while the server is away")

            try await cluster.startAgain()
            try await Self.insert(2, configuration)
            try await value(of: $count) { $0 == 5 }
            try await eventually($count) { $0.loadError == nil }
            #expect(count == (try await Self.freshCount(configuration)))
            await db.close()
        }
    }

    @Test func readersRecoverWhenTheirConnectionsAreDropped() async throws {
        let configuration = try await TestServer.makeConfiguration()
        try await Self.prepare(configuration)
        let db = try await PostgreSQLDatabase(configuration)
        @SharedReader(wrappedValue: -1, .fetchOne(Self.count, database: db)) var count: Int
        await db.liveEngine.source.untilListening()
        try await Self.insert(1, configuration)
        try await value(of: $count) { $0 == 1 }

        // Ends every other connection to the database: the database's own, the rounds' and the
        // listener's.
        let admin = try await PostgreSQLDatabase(configuration)
        let ended = try await admin.fetchAll(
            """
            SELECT pid, pg_terminate_backend(pid) FROM pg_stat_activity
            WHERE datname = current_database() AND pid <> pg_backend_pid()
            """)
        #expect(ended.count >= 3)
        let pids: [Int] = try ended.map { try $0["pid"] }
        try await TestServer.until("the terminated backends have exited") {
            let left = try await admin.fetchAll(
                "SELECT 1 FROM pg_stat_activity WHERE pid = ANY($1::int[])",
                [.text("{" + pids.map(String.init).joined(separator: ",") + "}")])
            return left.isEmpty
        }
        await admin.close()

        // The database's own connections are dropped. A statement that meets one before the client
        // has seen its end fails as closed, or with the server's farewell (57P01) when the client
        // reads that first, and forgets it; one of the next opens a fresh one.
        var answered = false
        for _ in 0...db.configuration.maximumConnections where !answered {
            do {
                answered = try await db.fetchOne("SELECT 1") != nil
            } catch let error as PostgreSQLError where error.endsTheSession {}
        }
        #expect(answered)

        // Live values reconnect by themselves.
        try await Self.insert(2, configuration)
        try await value(of: $count) { $0 == 3 }
        try await eventually($count) { $0.loadError == nil }
        #expect(count == (try await Self.freshCount(configuration)))
        await db.close()
    }
}
