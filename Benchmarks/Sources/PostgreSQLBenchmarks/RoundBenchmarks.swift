import Foundation
import Logging
import PostgreSQL
import PostgresNIO
import Synchronization

/// A refetch round of 50 distinct live queries: 50 `SharedReader`s, each of its own row of one
/// table; one `UPDATE` changes every row, and the time runs from just before the commit until all
/// 50 hold the new value. Beside it, the same 50 queries sent by hand with raw PostgresNIO: one
/// after another on one connection, all issued at once on one connection (PostgresNIO queues
/// them), and spread over 4 connections.
@MainActor
func measureRounds(_ db: PostgreSQLDatabase, _ server: Server, samples: Int) async throws {
    let count = 50
    try await db.execute("DROP TABLE IF EXISTS round_rows")
    try await db.execute("CREATE TABLE round_rows(k INTEGER PRIMARY KEY, v INTEGER NOT NULL)")
    try await db.execute(
        "INSERT INTO round_rows SELECT k, 0 FROM generate_series(0, $1) AS k", [.integer(Int64(count - 1))])
    try await db.installChangeNotifications(on: ["round_rows"])
    // Distinct SQL texts, each its own query (and plan) in the engine.
    let readers: [SharedReader<Int>] = (0..<count).map { k in
        SharedReader(
            wrappedValue: -1,
            .fetchOne(
                "SELECT v + \(k) - \(k) FROM round_rows WHERE k = $1", arguments: [.integer(Int64(k))], database: db))
    }
    for reader in readers { try await reader.load() }

    var logger = Logger(label: "bench")
    logger.logLevel = .critical
    var connections: [PostgresConnection] = []
    for id in 0..<4 {
        connections.append(
            try await PostgresConnection.connect(configuration: server.rawConfiguration, id: 10 + id, logger: logger))
    }
    func query(_ connection: PostgresConnection, _ k: Int) -> EventLoopFuture<PostgresQueryMetadata> {
        connection.query(
            PostgresQuery(
                unsafeSQL: "SELECT v + \(k) - \(k) FROM round_rows WHERE k = $1",
                binds: {
                    var binds = PostgresBindings()
                    binds.append(k)
                    return binds
                }()), logger: logger
        ) { _ in }
    }

    var live: [Double] = []
    var sequential: [Double] = []
    var oneConnection: [Double] = []
    var fourConnections: [Double] = []
    let warmUp = 5
    for index in 1...(warmUp + samples) {
        let start = monotonicNanoseconds()
        try await db.execute("UPDATE round_rows SET v = $1", [.integer(Int64(index))])
        let deadline = start + 10_000_000_000
        while readers.contains(where: { $0.wrappedValue != index }) {
            guard monotonicNanoseconds() < deadline else { throw BenchmarkError("a round did not finish within 10 s") }
            try await Task.sleep(for: .microseconds(50))
        }
        let elapsed = Double(monotonicNanoseconds() - start) / 1e6

        let t0 = monotonicNanoseconds()
        for k in 0..<count { _ = try await query(connections[0], k).get() }
        let t1 = monotonicNanoseconds()
        for future in (0..<count).map({ query(connections[0], $0) }) { _ = try await future.get() }
        let t2 = monotonicNanoseconds()
        for future in (0..<count).map({ query(connections[$0 % 4], $0) }) { _ = try await future.get() }
        let t3 = monotonicNanoseconds()
        guard index > warmUp else { continue }
        live.append(elapsed)
        sequential.append(Double(t1 - t0) / 1e6)
        oneConnection.append(Double(t2 - t1) / 1e6)
        fourConnections.append(Double(t3 - t2) / 1e6)
    }
    for connection in connections { try await connection.close() }

    print("A round of \(count) distinct live queries, \(samples) rounds after \(warmUp) warm-up")
    print("")
    print("| contender | p50 ms | p99 ms |")
    print("|---|---:|---:|")
    print(
        "| SharedReader (PostgreSQL): commit until all \(count) readers hold the new value | \(format(percentile(live, 0.5))) | \(format(percentile(live, 0.99))) |"
    )
    print(
        "| raw PostgresNIO: \(count) queries one after another, one connection | \(format(percentile(sequential, 0.5))) | \(format(percentile(sequential, 0.99))) |"
    )
    print(
        "| raw PostgresNIO: \(count) queries issued at once, one connection | \(format(percentile(oneConnection, 0.5))) | \(format(percentile(oneConnection, 0.99))) |"
    )
    print(
        "| raw PostgresNIO: \(count) queries issued at once, over 4 connections | \(format(percentile(fourConnections, 0.5))) | \(format(percentile(fourConnections, 0.99))) |"
    )
    print("")
}
