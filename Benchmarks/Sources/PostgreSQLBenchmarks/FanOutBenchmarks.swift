import Foundation
import Observation
import PostgreSQL
import SQLite
import SharingSQLite
import Synchronization

// Readers × instances fan-out: 300 live inboxes, 100 in each of 3 instances (processes), each of
// its own user's messages; single-row inserts, each for one user. How many reader queries each
// insert makes the server run, and how long until the one inbox it concerns holds it, beside a
// lone inbox in one instance.

/// The inbox of user `user`: the ids of their messages, in order.
struct Inbox: FetchKeyRequest {
    var user: Int

    func fetch(_ db: any SQLConnection) throws -> [Int64] {
        try Table("messages").select(Column("id")).filter(Column("user_id") == user).sort(Column("id"))
            .asRequest(of: Int64.self).fetchAll(db)
    }
}

/// The inboxes one instance holds: a `SharedReader` of `Inbox` per user, each reporting the
/// newest message id it holds to an `Arrivals` of its own.
final class Inboxes: Sendable {
    private let users: Range<Int>
    private let readers: Mutex<[SharedReader<[Int64]>]>
    private let arrivals: [Arrivals]

    /// Loads an inbox per user of `users`, one after another.
    init(database: PostgreSQLDatabase, users: Range<Int>) async throws {
        self.users = users
        var readers: [SharedReader<[Int64]>] = []
        for user in users {
            let reader = SharedReader(wrappedValue: [], .fetch(Inbox(user: user), database: database))
            try await reader.load()
            readers.append(reader)
        }
        let arrivals = users.map { _ in Arrivals(count: 1) }
        for (reader, arrivals) in zip(readers, arrivals) { watchNewest(reader, arrivals: arrivals) }
        self.readers = Mutex(readers)
        self.arrivals = arrivals
    }

    /// What `user`'s inbox reports to, or nil when this instance does not hold it.
    func arrivals(of user: Int) -> Arrivals? {
        users.contains(user) ? arrivals[user - users.lowerBound] : nil
    }

    func stop() { readers.withLock { $0 = [] } }
}

/// Reports the newest id `reader` holds (its last, the ids being sorted) to `arrivals`, whenever
/// its value changes, from the Observation callback itself.
func watchNewest(_ reader: SharedReader<[Int64]>, arrivals: Arrivals) {
    let value = withObservationTracking {
        reader.wrappedValue
    } onChange: { [weak reader] in
        guard let reader else { return }
        arrivals.report(0, value: Int(reader.wrappedValue.last ?? -1), at: monotonicNanoseconds())
        watchNewest(reader, arrivals: arrivals)
    }
    // As in `watch`: a change between the read and the start of tracking is reported here.
    arrivals.report(0, value: Int(value.last ?? -1), at: monotonicNanoseconds())
}

/// SplitMix64: the same users in every run.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// The server's counts that the fan-out measure reads: the calls of the inboxes' query since the
/// last reset of `pg_stat_statements`, and the client backends other than this one that are
/// not idle.
struct ServerActivity: Equatable {
    let readerCalls: Int
    let busy: Int

    /// The inboxes' statements: selects that name the table `messages` (the writes are inserts;
    /// the statement reading this, which names `pg_stat_statements`, is left out).
    static let readerFilter =
        "query ILIKE 'select%' AND position('messages' in query) > 0 AND position('pg_stat_statements' in query) = 0"

    init(_ db: PostgreSQLDatabase) async throws {
        let row = try await db.fetchOne(
            """
            SELECT (SELECT coalesce(sum(calls), 0)::bigint FROM pg_stat_statements WHERE \(Self.readerFilter)),
                (SELECT count(*) FROM pg_stat_activity
                 WHERE backend_type = 'client backend' AND state <> 'idle' AND pid <> pg_backend_pid())
            """)
        guard let row else { throw BenchmarkError("pg_stat_statements returned no row") }
        readerCalls = try row[0]
        busy = try row[1]
    }
}

/// Waits until the instances are quiet: no other client backend busy, and the inboxes' query
/// count unchanged for `window`. Returns that count; throws after 20 s.
func waitQuiet(_ db: PostgreSQLDatabase, window: Duration = .milliseconds(200)) async throws -> Int {
    let clock = ContinuousClock()
    let deadline = clock.now + .seconds(20)
    var last = try await ServerActivity(db)
    var since = clock.now
    while true {
        try await Task.sleep(for: .milliseconds(10))
        let now = try await ServerActivity(db)
        if now != last {
            last = now
            since = clock.now
        } else if now.busy == 0, clock.now - since >= window {
            return now.readerCalls
        }
        guard clock.now < deadline else { throw BenchmarkError("the instances were not quiet within 20 s") }
    }
}

/// The package's listening connections (one per process with live values) that have run
/// `LISTEN`.
func listeners(_ db: PostgreSQLDatabase) async throws -> Int {
    let row = try await db.fetchOne(
        """
        SELECT count(*) FROM pg_stat_activity
        WHERE application_name = 'live_query_listener' AND query ILIKE 'listen%'
        """)
    return try row.map { try $0[0] } ?? 0
}

/// Waits until exactly `count` listening connections have run `LISTEN`, for at most 20 s: before
/// an instance's has, a write's notification could not reach it.
func waitForListeners(_ db: PostgreSQLDatabase, _ count: Int) async throws {
    let clock = ContinuousClock()
    let deadline = clock.now + .seconds(20)
    while try await listeners(db) != count {
        guard clock.now < deadline else {
            throw BenchmarkError("not \(count) processes listening within 20 s")
        }
        try await Task.sleep(for: .milliseconds(10))
    }
}

/// One arrangement of inboxes, and what its writes measured.
struct FanOutResult {
    let name: String
    let instances: Int
    var latencies: [Double] = []
    /// From just before the insert's `execute` until it returned.
    var committed: [Double] = []
    /// From the return of the insert's `execute` until the inbox held it: the live value's part,
    /// without the commit's own time, which the disk's flushes make swing.
    var afterCommit: [Double] = []
    var queries: [Int] = []
}

/// The fan-out measure (`--only fanout`). First the floor: one instance holding the inbox of
/// user 0 alone, written to `writes` times. Then 3 instances holding 100 inboxes each (instance i
/// holds users i*100 ..< i*100+100), written to `writes` times, each write for a user drawn from
/// a seeded generator. Each write is one `INSERT` of a message with a new id; A waits until the
/// inbox it concerns holds that id, then until the instances are quiet, before the next.
@MainActor
func measureFanOut(_ db: PostgreSQLDatabase, _ server: Server, writes: Int, warmUp: Int) async throws {
    let perInstance = 100
    let instanceCount = 3
    let users = perInstance * instanceCount
    let preloaded = 5
    guard writes > 0, warmUp >= 0 else { throw BenchmarkError("the fan-out measure needs at least one write") }
    let preloads =
        try await db.fetchOne("SELECT current_setting('shared_preload_libraries')").map { try $0[0] as String } ?? ""
    guard preloads.contains("pg_stat_statements") else {
        throw BenchmarkError(
            "the fan-out measure needs the server started with shared_preload_libraries=pg_stat_statements")
    }
    try await db.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
    try await db.execute("DROP TABLE IF EXISTS messages")
    try await db.execute("CREATE TABLE messages(id BIGINT PRIMARY KEY, user_id INTEGER NOT NULL, body TEXT NOT NULL)")
    try await db.execute("CREATE INDEX messages_user_id ON messages(user_id, id)")
    try await db.execute(
        """
        INSERT INTO messages SELECT i, i % $1, 'message ' || i FROM generate_series(1, $2) AS i
        """, [.integer(Int64(users)), .integer(Int64(users * preloaded))])
    // Vacuumed and checkpointed now, so that neither autovacuum nor a checkpoint's writes of the
    // loaded pages land in the measured writes.
    try await db.execute("VACUUM (ANALYZE) messages")
    try await db.execute("CHECKPOINT")
    try await db.installChangeNotifications(on: ["messages"])

    // This process's own listener, if live values of an earlier measure still keep it.
    let baseline = try await listeners(db)
    var nextID = Int64(users * preloaded + 1)
    var generator = SeededGenerator(seed: 2026)

    /// Loads the inboxes, lets them settle, and runs `warmUp` and then `writes` inserts, each for
    /// the user `pick` draws.
    func run(_ name: String, instances: [Instance], inboxes: Int, pick: () -> Int) async throws -> FanOutResult {
        var result = FanOutResult(name: name, instances: instances.count)
        for (index, instance) in instances.enumerated() {
            try instance.request("inboxes \(index * perInstance) \(inboxes / instances.count)", "ready")
        }
        try await waitForListeners(db, baseline + instances.count)
        _ = try await waitQuiet(db)
        // The count of the inboxes' queries once the instances were last quiet.
        var before = 0
        for index in 0..<(warmUp + writes) {
            if index == warmUp {
                try await db.execute("SELECT pg_stat_statements_reset()::text")
                before = 0
            }
            let user = pick()
            let id = nextID
            nextID += 1
            let holder = instances[user / perInstance]
            try holder.request("expect-inbox \(user) \(id)", "armed")
            let start = monotonicNanoseconds()
            try await db.execute(
                "INSERT INTO messages(id, user_id, body) VALUES ($1, $2, $3)",
                [.integer(id), .integer(Int64(user)), .text("message \(id)")])
            let committed = Double(monotonicNanoseconds() - start) / 1e6
            let seen = try holder.answer("seen")
            let after = try await waitQuiet(db)
            if index >= warmUp {
                result.latencies.append(Double(Int64(bitPattern: (UInt64(seen[0]) ?? 0) &- start)) / 1e6)
                result.queries.append(after - before)
                result.committed.append(committed)
                result.afterCommit.append(result.latencies[result.latencies.count - 1] - committed)
            }
            before = after
        }
        return result
    }

    let floorInstance = try Instance(server: server)
    let floor = try await run("1 inbox in 1 instance (the floor)", instances: [floorInstance], inboxes: 1) { 0 }
    floorInstance.close()
    try await waitForListeners(db, baseline)

    var instances: [Instance] = []
    for _ in 0..<instanceCount { instances.append(try Instance(server: server)) }
    let fanOut = try await run(
        "\(users) inboxes, \(perInstance) in each of \(instanceCount) instances", instances: instances,
        inboxes: users
    ) { Int(generator.next() % UInt64(users)) }
    let texts = try await db.fetchAll(
        "SELECT query FROM pg_stat_statements WHERE \(ServerActivity.readerFilter) ORDER BY calls DESC"
    ).map { try $0[0] as String }
    for instance in instances { instance.close() }

    print(
        "Readers × instances fan-out: instance A inserts one message (one row) for one user per write; each inbox is a SharedReader of its user's messages, \(preloaded) each to begin with"
    )
    print(
        "\(writes) writes each after \(warmUp) warm-up, one after another, each waited until its inbox holds it and the instances are quiet; the inboxes' query, counted by pg_stat_statements: \(texts.joined(separator: " / "))"
    )
    print("")
    print(
        "| inboxes | instances | reader queries per write, mean | in one write, min–max | p50 ms until the inbox holds it | p99 ms | A's execute returned, p50 ms | from its return, p50 ms |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for result in [fanOut, floor] {
        let mean = Double(result.queries.reduce(0, +)) / Double(max(1, result.queries.count))
        print(
            "| \(result.name) | \(result.instances) | \(format(mean, 1)) | \(result.queries.min() ?? 0)–\(result.queries.max() ?? 0) | \(format(percentile(result.latencies, 0.5))) | \(format(percentile(result.latencies, 0.99))) | \(format(percentile(result.committed, 0.5))) | \(format(percentile(result.afterCommit, 0.5))) |"
        )
    }
    print("")
}
