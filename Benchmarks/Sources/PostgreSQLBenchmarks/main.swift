import Foundation
import Logging
import PostgreSQL
import PostgresNIO
import SQLite
import Synchronization

// `Benchmarks/run-postgres`: this package's PostgreSQL source against raw PostgresNIO, and its
// live values across two instances of a service, on one server over loopback TCP, in one run.
//
// - fetch_all: 100,000 rows of five columns (bigint, text, integer, double, boolean) into a
//   struct: raw PostgresNIO decoding each row's tuple; the package's query builder into a
//   `FetchableRow`; the package's SQL into owned `Row`s. In one process, rounds interleaved,
//   medians.
// - point_lookup: 2,000 queries of one row by primary key, one after another.
// - readers × instances fan-out: 1,000 inboxes, 250 in each of 4 instances, and single-row
//   inserts: the reader queries each insert makes the server run, the time until its inbox holds
//   it, and the CPU it costs, beside the inboxes written to alone and a lone inbox; UPDATEs of
//   100,000 rows; and a crowd of 20,000 inboxes, their memory, and transactions that change 200
//   of them (FanOutMeasure.swift).
// - cross-instance latency: a commit by this process (instance A) until a `SharedReader` in
//   another process (instance B, this program launched again) holds the new value, beside the
//   same thing written by hand with raw PostgresNIO (LiveBenchmarks.swift).
// - 100 readers of the written table, 50 per instance: `SharedReader`s against polling every
//   100 ms and every second.
// - commit throughput of 8 writers and of 1, with and without the change triggers, through
//   pgbench (CommitThroughput.swift).
// - pool: 8 tasks running short transactions, and point selects, through the database's pool
//   of 8 connections against PostgresNIO's `PostgresClient` (PoolThroughput.swift).
// - a refetch round of 50 distinct live queries, beside the same queries by hand with raw
//   PostgresNIO (RoundBenchmarks.swift).
//
// Usage: PostgreSQLBenchmarks HOST PORT [--rounds N] [--rows N] [--samples N] [--writes N]
//            [--poll-writes N] [--commit-rounds N] [--commit-seconds N] [--pool-rounds N]
//            [--pool-count N] [--round-samples N] [--fanout-writes N] [--fanout-instances N]
//            [--fanout-readers N] [--fanout-updates N] [--fanout-crowd N] [--fanout-crowd-writes N]
//            [--only fetch|latency|readers|commits|pool|rounds|fanout]
// HOST is an address for TCP, or a folder holding the server's Unix socket.
// PostgreSQLBenchmarks --instance HOST PORT runs another instance (B).
// PostgreSQLBenchmarks --print-change-sql TABLE prints the SQL that installs the change triggers on
// TABLE, which Benchmarks/run-trigger-instructions runs in a server of its own.

struct Item: FetchableRow {
    var id: Int64
    var title: String
    var priority: Int?
    var score: Double?
    var done: Bool

    init(id: Int64, title: String, priority: Int?, score: Double?, done: Bool) {
        self.id = id
        self.title = title
        self.priority = priority
        self.score = score
        self.done = done
    }

    init(row: BorrowedRow) throws {
        id = try row[0]
        title = try row[1]
        priority = try row[2]
        score = try row[3]
        done = try row[4]
    }
}

func milliseconds(_ body: () async throws -> Void) async rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try await body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
}

let arguments = CommandLine.arguments
if arguments.count == 3, arguments[1] == "--print-change-sql" {
    print(PostgreSQLDatabase.changeNotificationSQL(on: [arguments[2]]))
    exit(0)
}
if arguments.count >= 4, arguments[1] == "--instance", let port = Int(arguments[3]) {
    try await runInstance(server: Server(host: arguments[2], port: port))
    exit(0)
}
guard arguments.count >= 3, let port = Int(arguments[2]) else {
    FileHandle.standardError.write(
        Data(
            """
            usage: PostgreSQLBenchmarks HOST PORT [--rounds N] [--rows N] [--samples N] [--writes N] [--poll-writes N]
                       [--commit-rounds N] [--commit-seconds N] [--pool-rounds N] [--pool-count N]
                       [--round-samples N] [--fanout-writes N] [--fanout-instances N] [--fanout-readers N]
                       [--fanout-updates N] [--fanout-crowd N] [--fanout-crowd-writes N]
                       [--only fetch|latency|readers|commits|pool|rounds|fanout]

            """.utf8))
    exit(2)
}
let server = Server(host: arguments[1], port: port)
func option(_ name: String, _ fallback: Int) -> Int {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return fallback }
    return Int(arguments[index + 1]) ?? fallback
}
let only = arguments.firstIndex(of: "--only").flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
func measures(_ name: String) -> Bool { only == nil || only == name }
let rounds = option("--rounds", 7)
let rowCount = option("--rows", 100_000)
let samples = option("--samples", 200)
let writes = option("--writes", 50)
let pollWrites = option("--poll-writes", 15)
let lookups = 2_000

var logger = Logger(label: "bench")
logger.logLevel = .critical
let raw = try await PostgresConnection.connect(configuration: server.rawConfiguration, id: 1, logger: logger)
let db = try await PostgreSQLDatabase(server.packageConfiguration)

if measures("fetch") {
    try await db.execute("DROP TABLE IF EXISTS items")
    try await db.execute(
        "CREATE TABLE items(id BIGINT PRIMARY KEY, title TEXT NOT NULL, priority INTEGER, score DOUBLE PRECISION, done BOOLEAN NOT NULL)"
    )
    try await db.execute(
        """
        INSERT INTO items SELECT i, 'item ' || i, CASE WHEN i % 7 = 0 THEN NULL ELSE i % 5 END,
            CASE WHEN i % 11 = 0 THEN NULL ELSE i / 3.0 END, i % 2 = 0
        FROM generate_series(1, $1) AS i
        """, [.integer(Int64(rowCount))])
    try await db.execute("ANALYZE items")

    let sql = "SELECT id, title, priority, score, done FROM items"
    let request = Table("items").select(
        Column("id"), Column("title"), Column("priority"), Column("score"), Column("done")
    )
    .asRequest(of: Item.self)

    typealias Contender = (workload: String, name: String, run: () async throws -> Int)
    let contenders: [Contender] = [
        (
            "fetch_all", "raw PostgresNIO",
            {
                // The callback form, on the connection's event loop: the fastest way PostgresNIO reads
                // rows (its async row sequence hops to the task for each batch, and took 15 times as long).
                let items = Mutex<[Item]>([])
                items.withLock { $0.reserveCapacity(rowCount) }
                _ = try await raw.query(PostgresQuery(unsafeSQL: sql), logger: logger) { row in
                    let (id, title, priority, score, done) = try row.decode((Int64, String, Int?, Double?, Bool).self)
                    items.withLock {
                        $0.append(Item(id: id, title: title, priority: priority, score: score, done: done))
                    }
                }.get()
                return items.withLock { $0.count }
            }
        ),
        ("fetch_all", "PostgreSQL query builder (FetchableRow)", { try await request.fetchAll(db).count }),
        ("fetch_all", "PostgreSQL SQL (owned Row)", { try await db.fetchAll(sql).count }),
        (
            "point_lookup", "raw PostgresNIO",
            {
                let found = Mutex(0)
                for key in 0..<lookups {
                    let id = Int64(key * 37 % rowCount + 1)
                    _ = try await raw.query(
                        "SELECT id, title, priority, score, done FROM items WHERE id = \(id)", logger: logger
                    ) {
                        row in
                        _ = try row.decode((Int64, String, Int?, Double?, Bool).self)
                        found.withLock { $0 += 1 }
                    }.get()
                }
                return found.withLock { $0 }
            }
        ),
        (
            "point_lookup", "PostgreSQL query builder (FetchableRow)",
            {
                var found = 0
                for key in 0..<lookups {
                    let id = key * 37 % rowCount + 1
                    if try await Table("items").filter(Column("id") == id).asRequest(of: Item.self).fetchOne(db) != nil
                    {
                        found += 1
                    }
                }
                return found
            }
        ),
    ]

    var times = [[Double]](repeating: [], count: contenders.count)
    for round in 0..<rounds {
        FileHandle.standardError.write(Data("round \(round + 1)/\(rounds)\n".utf8))
        // Interleaved, and in a rotating order, so that drift in the machine's speed hits all alike.
        for offset in contenders.indices {
            let index = (offset + round) % contenders.count
            var count = 0
            let elapsed = try await milliseconds { count = try await contenders[index].run() }
            let expected = contenders[index].workload == "fetch_all" ? rowCount : lookups
            guard count == expected else {
                fatalError("\(contenders[index].name) returned \(count) rows, not \(expected)")
            }
            times[index].append(elapsed)
        }
    }

    print(
        "PostgreSQL \(rowCount) rows, \(server.description), median of \(rounds) rounds; point_lookup is \(lookups) queries"
    )
    print("")
    print("| workload | contender | median ms | × raw PostgresNIO |")
    print("|---|---|---:|---:|")
    for (index, contender) in contenders.enumerated() {
        let rawIndex = contenders.firstIndex { $0.workload == contender.workload && $0.name == "raw PostgresNIO" }!
        let ratio = median(times[index]) / median(times[rawIndex])
        print(
            "| \(contender.workload) | \(contender.name) | \(String(format: "%.2f", median(times[index]))) | \(String(format: "%.2f", ratio)) |"
        )
    }
    print("")
}

// Before the measures whose live values keep a listening connection of this process.
if measures("fanout") {
    var fanOut = FanOutOptions()
    fanOut.writes = option("--fanout-writes", fanOut.writes)
    fanOut.instances = option("--fanout-instances", fanOut.instances)
    fanOut.readers = option("--fanout-readers", fanOut.readers)
    fanOut.updates = option("--fanout-updates", fanOut.updates)
    fanOut.crowdReaders = option("--fanout-crowd", fanOut.crowdReaders)
    fanOut.crowdWrites = option("--fanout-crowd-writes", fanOut.crowdWrites)
    try await measureFanOut(db, server, fanOut)
}
if measures("latency") || measures("readers") {
    let instance = try Instance(server: server)
    let pollDB = try await PostgreSQLDatabase(server.packageConfiguration)
    try await createLiveTables(db)
    if measures("latency") {
        try await measureLatency(db, instance, samples: samples, warmUp: 20)
    }
    if measures("readers") {
        try await measureReaders(
            db, pollDB, instance,
            [
                ReaderContender(name: "SharedReader (PostgreSQL)", pollingMilliseconds: nil, writes: writes, warmUp: 5),
                ReaderContender(name: "polling every 100 ms", pollingMilliseconds: 100, writes: pollWrites, warmUp: 2),
                ReaderContender(name: "polling every 1 s", pollingMilliseconds: 1_000, writes: pollWrites, warmUp: 1),
            ])
    }
    instance.close()
    await pollDB.close()
}
if measures("rounds") {
    try await measureRounds(db, server, samples: option("--round-samples", 100))
}
if measures("commits") {
    try await measureCommitThroughput(
        db, server, rounds: option("--commit-rounds", 2), seconds: option("--commit-seconds", 12))
}
if measures("pool") {
    try await measurePoolThroughput(server, rounds: option("--pool-rounds", 5), perTask: option("--pool-count", 500))
}
let _: Void = try await raw.close()
await db.close()
