import PostgreSQL

extension TestServer {
    /// Checks `condition` every 10 ms until it holds, for at most `limit`: an upper bound that
    /// only turns a hang into a failure, which nothing waits for to pass.
    public static func until(
        _ what: String, limit: Duration = .seconds(20), _ condition: () async throws -> Bool
    ) async throws {
        let deadline = ContinuousClock.now + limit
        while try await !condition() {
            guard ContinuousClock.now < deadline else { throw TestServerError("timed out waiting until \(what)") }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Returns once a session of `database`'s database waits for a lock on `table` (a name as
    /// SQL writes it) that another holds, as `pg_locks` shows it; `database` must not be that
    /// session.
    public static func untilWaiting(forLockOn table: String, in database: PostgreSQLDatabase) async throws {
        try await until("a session waits for a lock on \(table)") {
            let waiting = try await database.fetchOne(
                "SELECT count(*) AS n FROM pg_catalog.pg_locks WHERE NOT granted AND relation = $1::regclass",
                [.text(table)])
            return try waiting?["n"] as Int? ?? 0 > 0
        }
    }
}
