import LiveValueTesting
import PostgreSQLTestServer
import SQLite
import SharingSQLite
import Testing

@testable import PostgreSQL

/// Refetch rounds of many distinct live queries: their values, their errors, and the connections
/// they read on.
@Suite(.postgreSQLInstalled, .timeLimit(.minutes(1)))
struct LiveRoundTests {
    static let count = 50

    /// A database with `round_rows(k, v)` holding `k = 0..<count`, `v = 0`, notifying its changes;
    /// and a second database handle on it, as another instance of the service would hold.
    private func withRows(
        _ body: (_ reader: PostgreSQLDatabase, _ writer: PostgreSQLDatabase) async throws -> Void
    ) async throws {
        let configuration = try await TestServer.makeConfiguration()
        let reader = try await PostgreSQLDatabase(configuration)
        let writer = try await PostgreSQLDatabase(configuration)
        do {
            try await writer.execute("CREATE TABLE round_rows(k INTEGER PRIMARY KEY, v INTEGER NOT NULL)")
            try await writer.execute(
                "INSERT INTO round_rows SELECT k, 0 FROM generate_series(0, $1) AS k", [.integer(Int64(Self.count - 1))]
            )
            try await writer.installChangeNotifications(on: ["round_rows"])
            try await body(reader, writer)
        } catch {
            await reader.close()
            await writer.close()
            throw error
        }
        await reader.close()
        await writer.close()
    }

    @Test func aRoundOfFiftyDistinctQueriesHoldsFreshValuesAndIsReadOnSeveralConnections() async throws {
        try await withRows { db, writer in
            // Distinct SQL texts: fifty queries, each with its own key and plan.
            let sqls = (0..<Self.count).map { "SELECT v + \($0) FROM round_rows WHERE k = $1" }
            let readers = sqls.enumerated().map { k, sql in
                SharedReader(wrappedValue: -1, .fetchOne(sql, arguments: [.integer(Int64(k))], database: db))
            }
            for reader in readers { try await reader.load() }
            #expect(readers.enumerated().allSatisfy { k, reader in reader.wrappedValue == k })
            await db.liveEngine.source.untilListening()

            try await writer.execute("UPDATE round_rows SET v = k * 3 + 1")
            for (k, reader) in readers.enumerated() {
                try await value(of: reader) { $0 == k * 4 + 1 }
                // The comment keeps the fresh fetch's text apart from the round's in the count below.
                let fresh: Int = try #require(
                    try await db.fetchOne("-- a fresh fetch\n" + sqls[k], [.integer(Int64(k))]))[0]
                #expect(reader.wrappedValue == fresh)
                #expect(reader.loadError == nil)
            }

            // PostgresNIO sends a connection's next statement only once the previous one has
            // answered: the round's queries overlap only when several connections read them.
            let connections: Int = try #require(
                try await writer.fetchOne(
                    """
                    SELECT count(*) FROM pg_stat_activity
                    WHERE datname = current_database()
                        AND (query LIKE 'SELECT v + %' OR query LIKE 'EXPLAIN (VERBOSE, FORMAT JSON) SELECT v + %')
                    """))[0]
            #expect(connections >= 2, "the round's queries were read on \(connections) connection")
        }
    }

    @Test func aQueryThatFailsInARoundKeepsItsOwnErrorWhileTheOthersUpdate() async throws {
        try await withRows { db, writer in
            // One SQL text for all: k = 7 divides by v - 1, the others by v + 1; after v = 1,
            // k = 7 divides by zero.
            let sql = "SELECT 100 / (v - $2) FROM round_rows WHERE k = $1"
            let failing = 7
            let arguments = (0..<Self.count).map { k -> [DatabaseValue] in
                [.integer(Int64(k)), .integer(k == failing ? 1 : -1)]
            }
            let readers = arguments.map { SharedReader(wrappedValue: 0, .fetchOne(sql, arguments: $0, database: db)) }
            for reader in readers { try await reader.load() }
            #expect(readers.enumerated().allSatisfy { k, reader in reader.wrappedValue == (k == failing ? -100 : 100) })
            await db.liveEngine.source.untilListening()

            try await writer.execute("UPDATE round_rows SET v = 1")
            for (k, reader) in readers.enumerated() where k != failing {
                try await value(of: reader) { $0 == 50 }
                let fresh: Int = try #require(try await db.fetchOne(sql, arguments[k]))[0]
                #expect(reader.wrappedValue == fresh)
                #expect(reader.loadError == nil)
            }
            let broken = readers[failing]
            try await eventually(broken) { $0.loadError != nil }
            let error = try #require(broken.loadError as? PostgreSQLError)
            #expect(error.message.contains("division by zero"))
            #expect(error.sql == sql)
            #expect(broken.wrappedValue == -100, "a failed refetch keeps the last value")
            await #expect(throws: PostgreSQLError.self) { try await db.fetchOne(sql, arguments[failing]) }
        }
    }
}
