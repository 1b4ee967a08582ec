import Foundation
import PostgreSQL
import SQLite
import SharingSQLite
import Synchronization

// Live values across two instances of a service, each a process of its own: this process is
// instance A, which writes; instance B is this program launched again (see Instance.swift).

/// Instance B, seen from A: commands written to its standard input, answers read from its
/// standard output.
@MainActor
final class Instance {
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private var lines: LineReader

    init(server: Server) throws {
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = ["--instance", server.host, String(server.port)]
        process.standardInput = input
        process.standardOutput = output
        lines = LineReader(output.fileHandleForReading)
        try process.run()
    }

    func send(_ line: String) {
        input.fileHandleForWriting.write(Data((line + "\n").utf8))
    }

    /// The next answer, which must start with `word`; its other words.
    func answer(_ word: String) throws -> [String] {
        guard let line = lines.next() else { throw BenchmarkError("instance B stopped") }
        let words = line.split(separator: " ").map(String.init)
        guard words.first == word else { throw BenchmarkError("instance B answered \"\(line)\", not \(word)") }
        return Array(words.dropFirst())
    }

    /// Sends `command` and waits for the answer `word`.
    @discardableResult
    func request(_ command: String, _ word: String) throws -> [String] {
        send(command)
        return try answer(word)
    }

    /// B's CPU time so far, and the queries its pollers ran.
    func usage() throws -> (cpu: UInt64, queries: Int) {
        let words = try request("usage", "usage")
        return (UInt64(words[0]) ?? 0, Int(words[1]) ?? 0)
    }

    func close() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}

/// Blocks until `arrivals` meets `value` (armed by `expect`), for at most 10 s: the latest and
/// summed times of arrival.
final class LocalWait: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    private let times = Mutex<(UInt64, UInt64)>((0, 0))

    init(_ arrivals: Arrivals, _ value: Int) {
        arrivals.expect(value) { [self] latest, sum in
            times.withLock { $0 = (latest, sum) }
            semaphore.signal()
        }
    }

    func wait() throws -> (latest: UInt64, sum: UInt64) {
        guard semaphore.wait(timeout: .now() + 10) == .success else {
            throw BenchmarkError("the readers of instance A did not see a write within 10 s")
        }
        return times.withLock { $0 }
    }
}

/// The tables of the live measures, with the package's notifications installed on those its
/// readers read, and the raw floor's trigger on its own table.
func createLiveTables(_ db: PostgreSQLDatabase) async throws {
    try await db.execute("DROP TABLE IF EXISTS counter, raw_counter, tallies")
    try await db.execute("CREATE TABLE counter(id INTEGER PRIMARY KEY, n BIGINT NOT NULL)")
    try await db.execute("CREATE TABLE raw_counter(id INTEGER PRIMARY KEY, n BIGINT NOT NULL)")
    try await db.execute("INSERT INTO counter VALUES (1, 0)")
    try await db.execute("INSERT INTO raw_counter VALUES (1, 0)")
    try await db.execute("CREATE TABLE tallies(bucket INTEGER PRIMARY KEY, n BIGINT NOT NULL)")
    try await db.execute("INSERT INTO tallies SELECT b, 0 FROM generate_series(0, 99) AS b")
    try await db.execute("ANALYZE tallies")
    try await db.installChangeNotifications(on: ["counter", "tallies"])
    try await db.execute(
        """
        CREATE OR REPLACE FUNCTION bench_raw_notify() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN PERFORM pg_notify('bench_raw', TG_TABLE_NAME); RETURN NULL; END $$
        """)
    try await db.execute(
        """
        CREATE TRIGGER bench_raw_notify AFTER INSERT OR UPDATE OR DELETE ON raw_counter
        FOR EACH STATEMENT EXECUTE FUNCTION bench_raw_notify()
        """)
}

/// Cross-instance latency: A commits an update of the counter row; B's reader of it notes when
/// it holds the new value. From just before A's `execute` to B's Observation callback.
/// Interleaved, commit by commit, with the raw floor on a table of its own.
@MainActor
func measureLatency(_ db: PostgreSQLDatabase, _ instance: Instance, samples: Int, warmUp: Int) async throws {
    try instance.request("latency", "ready")
    var package: (seen: [Double], committed: [Double]) = ([], [])
    var raw: (seen: [Double], notified: [Double], committed: [Double]) = ([], [], [])
    var timeouts = 0
    for index in 1...(warmUp + samples) {
        let measured = index > warmUp
        for isRaw in index % 2 == 0 ? [false, true] : [true, false] {
            instance.send("\(isRaw ? "expect-raw" : "expect") \(index)")
            _ = try instance.answer("armed")
            let start = monotonicNanoseconds()
            try await db.execute(
                "UPDATE \(isRaw ? "raw_counter" : "counter") SET n = $1 WHERE id = 1", [.integer(Int64(index))])
            let committed = Double(monotonicNanoseconds() - start) / 1e6
            guard let line = try? instance.answer("seen") else {
                // A notification lost while the listener connects (warm-up) answers "timeout".
                timeouts += 1
                guard !measured, timeouts < 3 else { throw BenchmarkError("instance B saw no commit within 10 s") }
                continue
            }
            guard measured else { continue }
            let seen = Double(Int64(bitPattern: (UInt64(line[0]) ?? 0) &- start)) / 1e6
            if isRaw {
                raw.seen.append(seen)
                raw.notified.append(Double(Int64(bitPattern: (UInt64(line[1]) ?? 0) &- start)) / 1e6)
                raw.committed.append(committed)
            } else {
                package.seen.append(seen)
                package.committed.append(committed)
            }
        }
    }
    print(
        "Cross-instance latency: instance A commits an UPDATE of one row; instance B, another process, holds a reader of it."
    )
    print(
        "From just before A's execute call to B's reader holding the new value; \(samples) commits each after \(warmUp) warm-up, interleaved"
    )
    print("")
    print("| from A's commit to B | p50 ms | p99 ms | A's execute returned, p50 ms |")
    print("|---|---:|---:|---:|")
    print(
        "| SharedReader (PostgreSQL) | \(format(percentile(package.seen, 0.5))) | \(format(percentile(package.seen, 0.99))) | \(format(percentile(package.committed, 0.5))) |"
    )
    print(
        "| raw PostgresNIO: LISTEN, SELECT again on the notification | \(format(percentile(raw.seen, 0.5))) | \(format(percentile(raw.seen, 0.99))) | \(format(percentile(raw.committed, 0.5))) |"
    )
    print(
        "| raw PostgresNIO: the notification alone | \(format(percentile(raw.notified, 0.5))) | \(format(percentile(raw.notified, 0.99))) | |"
    )
    print("")
}

/// One contender of the 100-reader measure.
struct ReaderContender {
    let name: String
    /// nil for `SharedReader`s, else the polling interval in milliseconds.
    let pollingMilliseconds: Int?
    let writes: Int
    let warmUp: Int
}

/// Both instances' counters at one moment.
struct Snapshot {
    let time: UInt64
    let cpu: UInt64
    let queries: Int
    /// Scans of the tallies table, from the server's statistics.
    let scans: Int

    @MainActor
    init(_ db: PostgreSQLDatabase, _ instance: Instance, _ local: any ReaderSet) async throws {
        let remote = try instance.usage()
        time = monotonicNanoseconds()
        cpu = cpuNanoseconds() + remote.cpu
        queries = local.queries + remote.queries
        let row = try await db.fetchOne(
            "SELECT coalesce(seq_scan, 0) + coalesce(idx_scan, 0) FROM pg_stat_user_tables WHERE relname = 'tallies'")
        scans = try row.map { try $0[0] } ?? 0
    }
}

/// 100 readers of one table, 50 in each instance, each of its own bucket's row; A updates every
/// row in one statement (the values differ from write to write), and waits until all 100 readers
/// hold the new value before the next write.
@MainActor
func measureReaders(
    _ db: PostgreSQLDatabase, _ pollDB: PostgreSQLDatabase, _ instance: Instance, _ contenders: [ReaderContender]
) async throws {
    var value = 0
    // A backend flushes its statistics at most once a second, and one that goes idle less than
    // a second after its last flush waits 10 s before flushing what it has pending.
    let statisticsDelay = Duration.milliseconds(10_500)
    let idle = Duration.seconds(2)
    var rows: [String] = []
    for contender in contenders {
        let local: any ReaderSet
        if let interval = contender.pollingMilliseconds {
            local = try await Pollers(
                database: pollDB, buckets: 0..<50, interval: .milliseconds(interval), current: value)
            try instance.request("poll \(interval) \(value)", "ready")
        } else {
            local = try await LiveReaders(database: db, buckets: 0..<50, current: value)
            try instance.request("live \(value)", "ready")
        }

        var all: [Double] = []
        var perReader: [Double] = []
        func write() async throws {
            value += 1
            let wait = LocalWait(local.arrivals, value)
            try instance.request("target \(value)", "armed")
            let start = monotonicNanoseconds()
            try await db.execute("UPDATE tallies SET n = $1", [.integer(Int64(value))])
            let here = try wait.wait()
            let there = try instance.answer("settled")
            let (latest, sum) = (max(here.latest, UInt64(there[0]) ?? 0), here.sum + (UInt64(there[1]) ?? 0))
            all.append(Double(latest - start) / 1e6)
            perReader.append((Double(sum) / 100 - Double(start)) / 1e6)
        }
        for _ in 0..<contender.warmUp { try await write() }
        (all, perReader) = ([], [])

        let isLive = contender.pollingMilliseconds == nil
        if isLive { try await Task.sleep(for: statisticsDelay) }
        let first = try await Snapshot(db, instance, local)
        try await Task.sleep(for: idle)
        let second = try await Snapshot(db, instance, local)
        for _ in 0..<contender.writes { try await write() }
        let cpuAfterWrites = cpuNanoseconds() + (try instance.usage().cpu)
        if isLive { try await Task.sleep(for: statisticsDelay) }
        let third = try await Snapshot(db, instance, local)

        local.stop()
        try instance.request("stop", "stopped")

        let idleSeconds = Double(second.time - first.time) / 1e9
        let writes = Double(contender.writes)
        // The live readers' queries are counted on the server (every write scans the table once
        // more itself); the pollers count their own.
        let queriesPerWrite =
            isLive
            ? Double(third.scans - second.scans - contender.writes) / writes
            : Double(third.queries - second.queries) / writes
        let queriesPerSecondIdle =
            isLive
            ? Double(second.scans - first.scans) / idleSeconds
            : Double(second.queries - first.queries) / idleSeconds
        let cpuPerWrite = Double(cpuAfterWrites - second.cpu) / 1e6 / writes
        let cpuPerSecondIdle = Double(second.cpu - first.cpu) / 1e6 / idleSeconds
        rows.append(
            "| \(contender.name) | \(contender.writes) | \(format(percentile(all, 0.5))) | \(format(percentile(all, 0.99))) | \(format(median(perReader))) | \(format(queriesPerWrite, 1)) | \(format(queriesPerSecondIdle, 1)) | \(format(cpuPerWrite)) | \(format(cpuPerSecondIdle)) |"
        )
    }
    print(
        "100 readers of the written table, 50 in each instance (distinct queries: one row each, by bucket); A updates all 100 rows in one statement per write"
    )
    print(
        "Latency from just before A's execute until all 100 readers hold the write; queries run by the readers; CPU time of both processes (getrusage)"
    )
    print("")
    print(
        "| readers | writes | p50 ms until all 100 hold it | p99 ms | mean per reader, p50 ms | reader queries per write | reader queries/s idle | CPU ms per write, A + B | CPU ms/s idle, A + B |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for row in rows { print(row) }
    print("")
}
