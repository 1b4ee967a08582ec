import Foundation
import Logging
import PostgreSQL
import PostgresNIO

// Throughput of `PostgreSQLDatabase`'s connection pool against PostgresNIO's `PostgresClient`,
// both at 8 connections, 8 tasks at once on one server:
// - transactions: each task runs short transactions on a row of its own (BEGIN; UPDATE it;
//   SELECT it; COMMIT), through `transaction(_:)` and through `PostgresClient.withTransaction`;
// - point selects: each task runs single statements outside any transaction, through the
//   database and through `PostgresClient.withConnection`, 4 times as many as transactions
//   (each is a quarter of the round trips).
// Same SQL with the same bound argument on both sides. The raw side reads rows with the
// callback form of `query`, as the package does, so that the two differ only in their pools.
// The contenders alternate within each round (after one round that opens the connections),
// and the table shows medians.

/// The contenders' work per task: `count` transactions or statements on row `row`.
private typealias PoolWork = @Sendable (_ row: Int64, _ count: Int) async throws -> Void

/// Runs `work` in `tasks` concurrent tasks, each on its own row, and returns the seconds taken.
private func timeTasks(_ tasks: Int, each count: Int, _ work: @escaping PoolWork) async throws -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try await withThrowingTaskGroup(of: Void.self) { group in
        for task in 0..<tasks {
            group.addTask { try await work(Int64(task + 1), count) }
        }
        try await group.waitForAll()
    }
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

func measurePoolThroughput(_ server: Server, rounds: Int, perTask: Int) async throws {
    let tasks = 8
    var configuration = server.packageConfiguration
    configuration.maximumConnections = tasks
    let db = try await PostgreSQLDatabase(configuration)
    try await db.execute("DROP TABLE IF EXISTS pool_bench")
    try await db.execute("CREATE TABLE pool_bench(id BIGINT PRIMARY KEY, n BIGINT NOT NULL)")
    try await db.execute(
        "INSERT INTO pool_bench SELECT i, 0 FROM generate_series(1, $1) AS i", [.integer(Int64(tasks))])

    let logger = {
        var logger = Logger(label: "bench")
        logger.logLevel = .critical
        return logger
    }()
    var clientConfiguration =
        server.isUnixSocket
        ? PostgresClient.Configuration(
            unixSocketPath: "\(server.host)/.s.PGSQL.\(server.port)", username: "postgres", password: nil,
            database: "postgres")
        : PostgresClient.Configuration(
            host: server.host, port: server.port, username: "postgres", password: nil, database: "postgres",
            tls: .disable)
    clientConfiguration.options.maximumConnections = tasks
    let client = PostgresClient(configuration: clientConfiguration, backgroundLogger: logger)
    let running = Task { await client.run() }

    /// Reads the one row of `query` on `connection`, as the package does.
    @Sendable func readOne(_ query: PostgresQuery, on connection: PostgresConnection) async throws {
        let read = Counter()
        _ = try await connection.query(query, logger: logger) { row in
            _ = try row.decode(Int64.self)
            read.add()
        }.get()
        guard read.current == 1 else { throw BenchmarkError("\(query.sql) read \(read.current) rows, not 1") }
    }

    typealias Contender = (workload: String, name: String, work: PoolWork)
    func count(_ contender: Contender) -> Int { contender.workload == "point selects" ? perTask * 4 : perTask }
    let contenders: [Contender] = [
        (
            "transactions", "PostgreSQLDatabase.transaction",
            { row, count in
                for _ in 0..<count {
                    try await db.transaction { tx in
                        try await tx.execute("UPDATE pool_bench SET n = n + 1 WHERE id = $1", [.integer(row)])
                        guard
                            let found = try await tx.fetchOne("SELECT n FROM pool_bench WHERE id = $1", [.integer(row)])
                        else { throw BenchmarkError("row \(row) is missing") }
                        let _: Int64 = try found[0]
                    }
                }
            }
        ),
        (
            "transactions", "raw PostgresClient.withTransaction",
            { row, count in
                for _ in 0..<count {
                    try await client.withTransaction(logger: logger) { connection in
                        _ = try await connection.query(
                            "UPDATE pool_bench SET n = n + 1 WHERE id = \(row)", logger: logger
                        )
                        .get()
                        try await readOne("SELECT n FROM pool_bench WHERE id = \(row)", on: connection)
                    }
                }
            }
        ),
        (
            "point selects", "PostgreSQLDatabase.fetchOne",
            { row, count in
                for _ in 0..<count {
                    guard let found = try await db.fetchOne("SELECT n FROM pool_bench WHERE id = $1", [.integer(row)])
                    else { throw BenchmarkError("row \(row) is missing") }
                    let _: Int64 = try found[0]
                }
            }
        ),
        (
            "point selects", "raw PostgresClient.withConnection",
            { row, count in
                for _ in 0..<count {
                    try await client.withConnection { connection in
                        try await readOne("SELECT n FROM pool_bench WHERE id = \(row)", on: connection)
                    }
                }
            }
        ),
    ]

    // A round that opens every connection of both pools, timed by no one.
    for contender in contenders { _ = try await timeTasks(tasks, each: 20, contender.work) }
    var seconds = [[Double]](repeating: [], count: contenders.count)
    for round in 0..<rounds {
        FileHandle.standardError.write(Data("pool: round \(round + 1)/\(rounds)\n".utf8))
        for offset in contenders.indices {
            let index = (offset + round) % contenders.count
            seconds[index].append(
                try await timeTasks(tasks, each: count(contenders[index]), contenders[index].work))
        }
    }

    // Every transaction of both sides committed its increment, once.
    let committed = (rounds * perTask + 20) * 2
    for row in try await db.fetchAll("SELECT id, n FROM pool_bench ORDER BY id") {
        let id: Int64 = try row[0]
        let n: Int64 = try row[1]
        guard n == committed else { throw BenchmarkError("row \(id) holds \(n), not \(committed)") }
    }
    try await db.execute("DROP TABLE pool_bench")
    running.cancel()
    await running.value
    await db.close()

    print(
        "Connection pools, \(tasks) tasks at \(tasks) connections, each \(perTask) transactions or \(perTask * 4) selects, \(server.description), median of \(rounds) rounds"
    )
    print("")
    print("| workload | contender | per second | time × raw PostgresClient |")
    print("|---|---|---:|---:|")
    for (index, contender) in contenders.enumerated() {
        let rawIndex = contenders.firstIndex { $0.workload == contender.workload && $0.name.hasPrefix("raw") }!
        let perSecond = Double(tasks * count(contender)) / median(seconds[index])
        print(
            "| \(contender.workload) | \(contender.name) | \(format(perSecond, 0)) | \(format(median(seconds[index]) / median(seconds[rawIndex]))) |"
        )
    }
    print("")
}
