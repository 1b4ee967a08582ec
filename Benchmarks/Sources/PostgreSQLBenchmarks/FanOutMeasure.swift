import Foundation
import PostgreSQL
import SQLite

// The fan-out measure (`--only fanout`), in three parts on one server:
//
// 1. Single-row inserts with N instances × M inboxes loaded (4 × 250 by default, every filter
//    distinct): reader queries per write, the time until the affected inbox holds the message, and
//    the CPU per write of the instances and the server; beside the same writes with each instance
//    holding only the inboxes of the users written to, and a lone inbox (the floor).
// 2. UPDATEs of 100,000 rows or more, spread over every user, with the N × M inboxes loaded: the
//    time until every inbox of every instance holds the change, and the reader queries it cost.
// 3. A crowd: N instances × 5,000 inboxes by default: the memory of an idle inbox, and
//    transactions of 200 single-row inserts for 200 users: the time until all 200 inboxes hold
//    their message, and the reader queries each cost.

/// What the fan-out measure runs.
struct FanOutOptions {
    /// Instance processes, and the inboxes each holds.
    var instances = 4
    var readers = 250
    /// Measured single-row inserts, after `warmUp` more.
    var writes = 60
    var warmUp = 3
    /// Large UPDATEs with every inbox loaded; 0 skips them.
    var updates = 3
    /// Inboxes each instance holds in the crowd (0 skips it), its measured batch writes (after 2
    /// of warm-up), and the inserts of each.
    var crowdReaders = 5_000
    var crowdWrites = 20
    var crowdBatch = 200

    /// Throws unless every figure is within bounds that keep the measure runnable.
    func validate() throws {
        guard (1...64).contains(instances), (1...100_000).contains(readers), (1...100_000).contains(writes),
            (0...1_000).contains(warmUp), (0...1_000).contains(updates), (0...100_000).contains(crowdReaders),
            (1...100_000).contains(crowdWrites), (1...10_000).contains(crowdBatch),
            crowdReaders == 0 || crowdBatch <= instances * crowdReaders
        else { throw BenchmarkError("fan-out options out of bounds: \(self)") }
    }
}

/// The CPU time of the server's processes, from /proc/PID/stat: the postmaster's own and that of
/// the children it reaped (backends that ended), and each live child's (every server process is a
/// child of the postmaster), but for `excluded`, the measure's own monitoring connection.
struct ServerCPU {
    let postmaster: Int32
    let excluded: Int32

    static let ticksPerSecond = UInt64(max(1, sysconf(Int32(_SC_CLK_TCK))))

    /// The server of `monitor`'s backend: its parent. Nil when /proc does not show it (a server
    /// on another machine).
    init?(monitorBackend: Int32) {
        guard let backend = Self.stat(monitorBackend), Self.stat(backend.parent) != nil else { return nil }
        postmaster = backend.parent
        excluded = monitorBackend
    }

    /// Of /proc/PID/stat, the parent (field 4), utime + stime (14, 15) and cutime + cstime (16,
    /// 17), in clock ticks. The fields are counted after the command's closing parenthesis, since
    /// the command may hold spaces.
    static func stat(_ pid: Int32) -> (parent: Int32, own: UInt64, children: UInt64)? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return nil }
        // fields[0] is field 3, the state.
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 14, let parent = Int32(fields[1]), let utime = UInt64(fields[11]),
            let stime = UInt64(fields[12]), let cutime = UInt64(fields[13]), let cstime = UInt64(fields[14])
        else { return nil }
        return (parent, utime + stime, cutime + cstime)
    }

    /// The server's CPU time so far, in nanoseconds. A process that ends between the listing and
    /// its reading is missed by this sample, and counted in the postmaster's children by the next.
    func nanoseconds() -> UInt64 {
        var ticks: UInt64 = 0
        if let own = Self.stat(postmaster) { ticks += own.own + own.children }
        for name in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = Int32(name), pid != excluded, pid != postmaster, let stat = Self.stat(pid),
                stat.parent == postmaster
            else { continue }
            ticks += stat.own
        }
        return ticks * 1_000_000_000 / Self.ticksPerSecond
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
    /// CPU milliseconds per measured write: the instances' processes, and the server's.
    var instanceCPU: Double?
    var serverCPU: Double?

    var totalCPU: Double? { instanceCPU.flatMap { instances in serverCPU.map { instances + $0 } } }
}

/// The table of messages: `perUser` to begin with for each of `users` users (message i is user
/// i % users's), an index on `(user_id, id)`, vacuumed and checkpointed so that neither autovacuum
/// nor a checkpoint of the loaded pages lands in the measured writes, with the change triggers.
func createMessages(_ db: PostgreSQLDatabase, users: Int, perUser: Int) async throws {
    try await db.execute("DROP TABLE IF EXISTS messages")
    try await db.execute(
        """
        CREATE TABLE messages(id BIGINT PRIMARY KEY, user_id INTEGER NOT NULL, body TEXT NOT NULL,
            revision INTEGER NOT NULL DEFAULT 0)
        """)
    try await db.execute("CREATE INDEX messages_user_id ON messages(user_id, id)")
    try await db.execute(
        """
        INSERT INTO messages(id, user_id, body) SELECT i, i % $1, 'message ' || i FROM generate_series(1, $2) AS i
        """, [.integer(Int64(users)), .integer(Int64(users * perUser))])
    try await db.execute("VACUUM (ANALYZE) messages")
    try await db.execute("CHECKPOINT")
    try await db.installChangeNotifications(on: ["messages"])
}

/// Sends `command` to every instance, then waits for each one's answer `word`: the instances
/// work at once.
@MainActor
func requestAll(_ instances: [Instance], _ commands: [String], _ word: String) throws -> [[String]] {
    for (instance, command) in zip(instances, commands) { instance.send(command) }
    return try instances.map { try $0.answer(word) }
}

/// The fan-out measure (`--only fanout`): see the top of this file. Every wait for an inbox ends
/// in the instance's Observation callback; between writes, A waits until the instances are quiet
/// (`waitQuiet`), on a monitoring connection of its own whose backend the server's CPU leaves out.
@MainActor
func measureFanOut(_ db: PostgreSQLDatabase, _ server: Server, _ options: FanOutOptions) async throws {
    try options.validate()
    let perInstance = options.readers
    let users = perInstance * options.instances
    // At least 100 messages per user, and 100,000 in all: the large UPDATE changes them all.
    let preloaded = max(100, (100_000 + users - 1) / users)
    var monitorConfiguration = server.packageConfiguration
    monitorConfiguration.maximumConnections = 1
    let monitor = try await PostgreSQLDatabase(monitorConfiguration)
    let preloads =
        try await monitor.fetchOne("SELECT current_setting('shared_preload_libraries')").map { try $0[0] as String }
        ?? ""
    guard preloads.contains("pg_stat_statements") else {
        throw BenchmarkError(
            "the fan-out measure needs the server started with shared_preload_libraries=pg_stat_statements")
    }
    try await db.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
    let monitorBackend = try await monitor.fetchOne("SELECT pg_backend_pid()::bigint").map { try $0[0] as Int } ?? 0
    let serverCPU = Int32(exactly: monitorBackend).flatMap { ServerCPU(monitorBackend: $0) }
    try await createMessages(db, users: users, perUser: preloaded)

    // This process's own listener, if live values of an earlier measure still keep it.
    let baseline = try await listeners(monitor)
    var nextID = Int64(users * preloaded + 1)
    var generator = SeededGenerator(seed: 2026)
    // The users written to, the same in every arrangement, warm-up first.
    let picks = (0..<(options.warmUp + options.writes)).map { _ in Int(generator.next() % UInt64(users)) }

    /// CPU nanoseconds so far: the instances' (each asked), and the server's (nil when /proc does
    /// not show it).
    func cpu(_ instances: [Instance]) throws -> (instances: UInt64, server: UInt64?) {
        var total: UInt64 = 0
        for instance in instances { total += try instance.usage().cpu }
        return (total, serverCPU?.nanoseconds())
    }

    /// Loads the inboxes (instance i runs `holdings[i]`), lets them settle, and runs an insert
    /// for each user of `picks` (held by instance user / perInstance), the warm-up first.
    func run(
        _ name: String, instances: [Instance], holdings: [String], listening: Int, picks: [Int]
    ) async throws -> FanOutResult {
        var result = FanOutResult(name: name, instances: instances.count)
        _ = try requestAll(instances, holdings, "ready")
        try await waitForListeners(monitor, baseline + listening)
        _ = try await waitQuiet(monitor)
        // The count of the inboxes' queries once the instances were last quiet.
        var before = 0
        var cpuBefore: (instances: UInt64, server: UInt64?) = (0, nil)
        for (index, user) in picks.enumerated() {
            if index == options.warmUp {
                try await monitor.execute("SELECT pg_stat_statements_reset()::text")
                before = 0
                cpuBefore = try cpu(instances)
            }
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
            let after = try await waitQuiet(monitor)
            if index >= options.warmUp {
                result.latencies.append(Double(Int64(bitPattern: (UInt64(seen[0]) ?? 0) &- start)) / 1e6)
                result.queries.append(after - before)
                result.committed.append(committed)
                result.afterCommit.append(result.latencies[result.latencies.count - 1] - committed)
            }
            before = after
        }
        let cpuAfter = try cpu(instances)
        let writes = Double(options.writes)
        result.instanceCPU = Double(cpuAfter.instances - cpuBefore.instances) / 1e6 / writes
        if let after = cpuAfter.server, let before = cpuBefore.server {
            result.serverCPU = Double(after - before) / 1e6 / writes
        }
        return result
    }

    func launch(_ count: Int) throws -> [Instance] { try (0..<count).map { _ in try Instance(server: server) } }

    let floorInstance = try launch(1)
    let floor = try await run(
        "1 inbox in 1 instance (the floor), every write for its user", instances: floorInstance,
        holdings: ["inboxes 0 1"], listening: 1, picks: picks.map { _ in 0 })
    for instance in floorInstance { instance.close() }
    try await waitForListeners(monitor, baseline)

    // Only the inboxes of the users written to, each in the instance that holds it below.
    let written = (0..<options.instances).map { index in
        Set(picks.filter { $0 / perInstance == index }).sorted()
    }
    let sparseInstances = try launch(options.instances)
    let sparse = try await run(
        "only the \(Set(picks).count) inboxes written to, over \(options.instances) instances",
        instances: sparseInstances,
        holdings: written.map { (["inbox-set"] + $0.map(String.init)).joined(separator: " ") },
        listening: written.filter { !$0.isEmpty }.count, picks: picks)
    for instance in sparseInstances { instance.close() }
    try await waitForListeners(monitor, baseline)

    let instances = try launch(options.instances)
    let fanOut = try await run(
        "\(users) inboxes, \(perInstance) in each of \(options.instances) instances", instances: instances,
        holdings: (0..<options.instances).map { "inboxes \($0 * perInstance) \(perInstance)" },
        listening: options.instances, picks: picks)
    let texts = try await monitor.fetchAll(
        "SELECT query FROM pg_stat_statements WHERE \(ServerActivity.readerFilter) ORDER BY calls DESC"
    ).map { try $0[0] as String }

    // The large UPDATEs, with the fan-out's inboxes still loaded.
    var updates: [(rows: Int, returned: Double, last: Double, queries: Int)] = []
    var quiet = try await waitQuiet(monitor)
    for revision in 0..<options.updates {
        _ = try requestAll(instances, instances.map { _ in "expect-revision \(revision + 1)" }, "armed")
        let start = monotonicNanoseconds()
        let rows = try await db.execute(
            "UPDATE messages SET revision = $1 WHERE id <= $2",
            [.integer(Int64(revision + 1)), .integer(Int64(users * preloaded))])
        let returned = Double(monotonicNanoseconds() - start) / 1e6
        let last = try instances.map { try $0.answer("settled")[0] }.compactMap { UInt64($0) }.max() ?? start
        let after = try await waitQuiet(monitor)
        updates.append((rows, returned, Double(Int64(bitPattern: last &- start)) / 1e6, after - quiet))
        quiet = after
    }
    for instance in instances { instance.close() }
    try await waitForListeners(monitor, baseline)

    print(
        "Readers × instances fan-out: instance A inserts one message (one row) for one user per write; each inbox is a SharedReader of its user's messages (id and revision), \(preloaded) each to begin with"
    )
    print(
        "\(options.writes) writes each after \(options.warmUp) warm-up, one after another, each waited until its inbox holds it and the instances are quiet; the inboxes' query, counted by pg_stat_statements: \(texts.joined(separator: " / "))"
    )
    print(
        "CPU per write: utime+stime of the instance processes (getrusage), and of the server's processes (/proc/PID/stat, every child of the postmaster but the measure's monitoring connection, and the children it reaped), across the measured writes\(serverCPU == nil ? "; the server's processes were not found in /proc" : "")"
    )
    print("")
    print(
        "| inboxes | instances | reader queries per write, mean | in one write, min–max | p50 ms until the inbox holds it | p99 ms | A's execute returned, p50 ms | from its return, p50 ms | CPU ms per write: instances | server | total |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for result in [fanOut, sparse, floor] {
        let mean = Double(result.queries.reduce(0, +)) / Double(max(1, result.queries.count))
        let cpu = [result.instanceCPU, result.serverCPU, result.totalCPU].map { $0.map { format($0) } ?? "–" }
        print(
            "| \(result.name) | \(result.instances) | \(format(mean, 1)) | \(result.queries.min() ?? 0)–\(result.queries.max() ?? 0) | \(format(percentile(result.latencies, 0.5))) | \(format(percentile(result.latencies, 0.99))) | \(format(percentile(result.committed, 0.5))) | \(format(percentile(result.afterCommit, 0.5))) | \(cpu[0]) | \(cpu[1]) | \(cpu[2]) |"
        )
    }
    print("")
    if let total = fanOut.totalCPU, let floorTotal = sparse.totalCPU, floorTotal > 0 {
        print(
            "CPU per write, \(users) inboxes ÷ only the inboxes written to: \(format(total / floorTotal)) (instances alone: \(format((fanOut.instanceCPU ?? 0) / max(1e-9, sparse.instanceCPU ?? 0))))"
        )
        print("")
    }

    if !updates.isEmpty {
        print(
            "Large UPDATE: with the \(users) inboxes loaded, one statement sets the revision of the \(users * preloaded) preloaded messages (\(preloaded) of each user); from just before A's execute until the last inbox of every instance holds the new revision (each instance's Observation callbacks), and the inboxes' queries it cost"
        )
        print("")
        print("| UPDATE | rows changed | A's execute returned, ms | last inbox holds it, ms | reader queries |")
        print("|---:|---:|---:|---:|---:|")
        for (index, update) in updates.enumerated() {
            print(
                "| \(index + 1) | \(update.rows) | \(format(update.returned)) | \(format(update.last)) | \(update.queries) |"
            )
        }
        print("")
    }

    if options.crowdReaders > 0 {
        try await measureCrowd(db, monitor, server, options, baseline: baseline)
    }
    await monitor.close()
}

/// The crowd: `options.instances` instances of `options.crowdReaders` inboxes each (5 messages a
/// user). Their resident memory before and after loading, and transactions of
/// `options.crowdBatch` single-row inserts for as many distinct users, each timed from just
/// before its `COMMIT` until the last of those inboxes holds its message.
@MainActor
func measureCrowd(
    _ db: PostgreSQLDatabase, _ monitor: PostgreSQLDatabase, _ server: Server, _ options: FanOutOptions,
    baseline: Int
) async throws {
    let perInstance = options.crowdReaders
    let users = perInstance * options.instances
    let preloaded = 5
    let warmUp = 2
    try await createMessages(db, users: users, perUser: preloaded)
    var nextID = Int64(users * preloaded + 1)
    var generator = SeededGenerator(seed: 2027)

    let instances = try (0..<options.instances).map { _ in try Instance(server: server) }
    // Each instance's memory once its database is open, before any live value.
    let rssBefore = try requestAll(instances, instances.map { _ in "rss" }, "rss").map { Int($0[0]) ?? 0 }
    let loadStart = monotonicNanoseconds()
    _ = try requestAll(
        instances, (0..<options.instances).map { "inboxes \($0 * perInstance) \(perInstance)" }, "ready")
    let loadSeconds = Double(monotonicNanoseconds() - loadStart) / 1e9
    try await waitForListeners(monitor, baseline + options.instances)
    var before = try await waitQuiet(monitor)
    let rssAfter = try requestAll(instances, instances.map { _ in "rss" }, "rss").map { Int($0[0]) ?? 0 }

    var latencies: [Double] = []
    var committed: [Double] = []
    var queries: [Int] = []
    for index in 0..<(warmUp + options.crowdWrites) {
        var chosen: [Int] = []
        var seen = Set<Int>()
        while chosen.count < options.crowdBatch {
            let user = Int(generator.next() % UInt64(users))
            if seen.insert(user).inserted { chosen.append(user) }
        }
        var batch: [(user: Int, id: Int64)] = []
        for user in chosen {
            batch.append((user, nextID))
            nextID += 1
        }
        let involved = (0..<options.instances).filter { instance in
            batch.contains { $0.user / perInstance == instance }
        }
        _ = try requestAll(
            involved.map { instances[$0] },
            involved.map { instance in
                (["expect-batch"] + batch.filter { $0.user / perInstance == instance }.map { "\($0.user):\($0.id)" })
                    .joined(separator: " ")
            }, "armed")
        let start = try await insertBatch(db, batch)
        let returned = monotonicNanoseconds()
        let last = try involved.map { try instances[$0].answer("settled")[0] }.compactMap { UInt64($0) }.max() ?? start
        let after = try await waitQuiet(monitor)
        if index >= warmUp {
            latencies.append(Double(Int64(bitPattern: last &- start)) / 1e6)
            committed.append(Double(returned - start) / 1e6)
            queries.append(after - before)
        }
        before = after
    }
    for instance in instances { instance.close() }
    try await waitForListeners(monitor, baseline)

    let unloaded = rssBefore.reduce(0, +)
    let loaded = rssAfter.reduce(0, +)
    print(
        "Crowd: \(users) inboxes, \(perInstance) in each of \(options.instances) instances (\(preloaded) messages a user), loaded concurrently in \(format(loadSeconds, 1)) s; resident memory (VmRSS) of the instance processes, summed, before loading and once loaded and quiet"
    )
    print(
        "\(options.crowdWrites) writes after \(warmUp) warm-up, each one transaction of \(options.crowdBatch) single-row inserts for \(options.crowdBatch) distinct users (a notification each), from just before its COMMIT until the last of those inboxes holds its message; p99 of \(options.crowdWrites) writes is about their slowest"
    )
    print("")
    print(
        "| inboxes | instances | RSS before, MiB | loaded, MiB | KiB per inbox | reader queries per write, mean | min–max | p50 ms until all hold it | p99 ms | COMMIT returned, p50 ms |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    let mean = Double(queries.reduce(0, +)) / Double(max(1, queries.count))
    print(
        "| \(users) | \(options.instances) | \(format(Double(unloaded) / 1024, 1)) | \(format(Double(loaded) / 1024, 1)) | \(format(Double(loaded - unloaded) / Double(users))) | \(format(mean, 1)) | \(queries.min() ?? 0)–\(queries.max() ?? 0) | \(format(percentile(latencies, 0.5))) | \(format(percentile(latencies, 0.99))) | \(format(percentile(committed, 0.5))) |"
    )
    print("")
}

/// Inserts a message for each user of `batch`, one statement each, in one transaction: the time
/// just before its `COMMIT`, which sends the notifications.
func insertBatch(_ db: PostgreSQLDatabase, _ batch: [(user: Int, id: Int64)]) async throws -> UInt64 {
    try await db.transaction { transaction in
        for (user, id) in batch {
            try await transaction.execute(
                "INSERT INTO messages(id, user_id, body) VALUES ($1, $2, $3)",
                [.integer(id), .integer(Int64(user)), .text("message \(id)")])
        }
        return monotonicNanoseconds()
    }
}
