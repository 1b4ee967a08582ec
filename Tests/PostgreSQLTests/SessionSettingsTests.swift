import Foundation
import PostgreSQLTestServer
import SQLite
import SharingSQLite
import Testing

@testable import PostgreSQL

/// Values read through sessions whose database and role set every setting that changes text
/// output, literals or input away from PostgreSQL's defaults, against a database that keeps them.
@Suite(.postgreSQLInstalled, .timeLimit(.minutes(2)))
struct SessionSettingsTests {
    /// What `ALTER DATABASE … SET` gives the odd database, and `ALTER ROLE … IN DATABASE` its role.
    static let databaseSettings = [
        "extra_float_digits = 0", "DateStyle = 'SQL, DMY'", "IntervalStyle = 'sql_standard'",
        "bytea_output = 'escape'", "standard_conforming_strings = off", "TimeZone = 'Asia/Kathmandu'",
        "xmloption = document", "transform_null_equals = on", "array_nulls = off",
    ]
    static let roleSettings = ["IntervalStyle = 'iso_8601'", "extra_float_digits = -15", "DateStyle = 'German'"]

    /// One row of text forms that each of those settings changes.
    static let probe = """
        SELECT (0.1::float8 + 0.2::float8)::text AS float, (0.1::float8 + 0.2::float8) = 0.30000000000000004 AS equal,
            '2026-03-01'::date::text AS date, '01/02/2026'::date::text AS input,
            '2026-03-01 12:00:00+00'::timestamptz::text AS stamp, '1 day 02:03:04'::interval::text AS interval,
            '\\x01ff'::bytea::text AS bytea, 'a\\b' AS literal, 'a%' LIKE 'a\\%' ESCAPE '\\' AS escaped,
            (NULL::int = NULL) IS NULL AS null_equals, ('{NULL}'::text[])[1] IS NULL AS array_null,
            '<a/><b/>'::xml::text AS xml
        """

    /// The odd database (made by `admin`), with its role, and a configuration for that role.
    private static func oddConfiguration(admin: PostgreSQLDatabase) async throws -> PostgreSQLDatabase.Configuration {
        var configuration = try await TestServer.makeConfiguration()
        let database = String.quotedIdentifier(configuration.database)
        for setting in databaseSettings { try await admin.execute("ALTER DATABASE \(database) SET \(setting)") }
        let role = "settings_" + UUID().uuidString.prefix(8).lowercased()
        try await admin.execute("CREATE ROLE \(role) LOGIN SUPERUSER")
        for setting in roleSettings {
            try await admin.execute("ALTER ROLE \(role) IN DATABASE \(database) SET \(setting)")
        }
        configuration.user = role
        return configuration
    }

    @Test func everySessionReadsTheDefaultsWhateverTheDatabaseAndRoleSet() async throws {
        let admin = try await PostgreSQLDatabase(TestServer.configuration(database: "postgres"))
        let odd = try await PostgreSQLDatabase(Self.oddConfiguration(admin: admin))
        let plain = try await TestServer.makeDatabase()
        let expected = try #require(try await plain.fetchAll(Self.probe).first)
        #expect(expected.value(named: "float") == .text("0.30000000000000004"))
        #expect(expected.value(named: "input") == .text("2026-01-02"))
        #expect(expected.value(named: "literal") == .text("a\\b"))

        #expect(try await odd.fetchAll(Self.probe).first == expected, "a statement of the pool")
        // Three transactions at once hold three connections: the ones opened later too.
        let rows = try await withThrowingTaskGroup(of: Row?.self) { group in
            let inside = Gate(count: 3)
            for _ in 0..<3 {
                group.addTask {
                    try await odd.transaction { tx in
                        await inside.arrive()
                        return try await tx.fetchAll(Self.probe).first
                    }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(rows == Array(repeating: expected, count: 3), "the pool's other connections")
        #expect(
            try await odd.fetchOne("SELECT $1::float8", [.real(0.1 + 0.2)])?.value(at: 0) == .real(0.1 + 0.2),
            "a bound double reads back unchanged")

        // A live value reads on connections of its own.
        let json = "SELECT row_to_json(p)::text FROM (\(Self.probe)) AS p"
        @SharedReader(wrappedValue: "", .fetchOne(json, database: odd)) var live: String
        try await $live.load()
        #expect(.text(live) == (try await plain.fetchOne(json))?.value(at: 0))

        await odd.close()
        await plain.close()
        await admin.close()
    }

    @Test func timeLimitsAreTheSessionsSettings() async throws {
        var configuration = try await TestServer.makeConfiguration()
        configuration.lockTimeout = .milliseconds(1500)
        configuration.statementTimeout = .milliseconds(400)
        let db = try await PostgreSQLDatabase(configuration)
        #expect(try await db.fetchOne("SHOW lock_timeout")?.value(at: 0) == .text("1500ms"))
        #expect(try await db.fetchOne("SHOW statement_timeout")?.value(at: 0) == .text("400ms"))
        let error = await #expect(throws: PostgreSQLError.self) { try await db.execute("SELECT pg_sleep(2)") }
        #expect(error?.sqlState == "57014")
        await db.close()

        // Zero would turn the limit off: the least limit is 1 ms, which no sleep of 50 ms outlasts.
        // (Even a SHOW may take longer than 1 ms on a busy machine, so the sleep is what is asked.)
        configuration.statementTimeout = .zero
        let least = try await PostgreSQLDatabase(configuration)
        let stopped = await #expect(throws: PostgreSQLError.self) {
            try await least.execute("SELECT pg_sleep(0.05)")
        }
        #expect(stopped?.sqlState == "57014")
        await least.close()
    }
}

/// Lets tasks on until `count` of them have arrived.
private actor Gate {
    private var waiting: [CheckedContinuation<Void, Never>] = []
    private let count: Int

    init(count: Int) { self.count = count }

    func arrive() async {
        if waiting.count + 1 == count {
            for continuation in waiting { continuation.resume() }
            waiting = []
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }
}
