import Foundation
import Observation
import SharingSQLite
import Synchronization

// `--observation`: live values against GRDB's ValueObservation, in one process.
//
// - 100 readers (distinct queries, like 100 observations) on the written table, then the same
//   with one shared key, 2,000 single-row write transactions: time per write, and the time until
//   every reader holds the final count (checked, or the run fails).
// - 1,000 readers on a table that is never written: time per write, against no readers.
// - commit → notification latency in-process (p50, p99), from the start of the write call to the
//   first callback each library makes with the new value.
// - then the cross-process and cache benchmarks (CrossProcessBenchmark.swift, CacheBenchmark.swift).

protocol ObservationContender {
    var name: String { get }
    /// Runs `writes` single-row inserts into `items` with `readers` live counts of `table`.
    /// Returns microseconds per write and milliseconds until every reader holds the final value.
    func writes(_ writes: Int, readers: Int, sharedKey: Bool, table: String) throws -> (
        perWrite: Double, settled: Double
    )
    /// Microseconds from the start of each write to the reader's notification.
    func latencies(_ samples: Int) throws -> [Double]
}

let observationSchema = """
    CREATE TABLE items(id INTEGER PRIMARY KEY, title TEXT NOT NULL);
    CREATE TABLE quiet(id INTEGER PRIMARY KEY, title TEXT NOT NULL);
    INSERT INTO quiet(title) VALUES ('never written');
    """

func countQuery(_ table: String) -> String { "SELECT count(*) FROM \(table) WHERE ? >= 0" }

/// Waits until `done` holds, checking often; a benchmark may poll, and fails after a minute.
func waitUntil(_ what: String, _ done: () -> Bool) throws {
    let deadline = DispatchTime.now().uptimeNanoseconds + 60_000_000_000
    while !done() {
        guard DispatchTime.now().uptimeNanoseconds < deadline else {
            throw BenchmarkError("timed out waiting for \(what)")
        }
        usleep(100)
    }
}

/// Lets what the previous workload left running (observers being torn down, queues
/// draining) finish before the next one is timed.
func settle() {
    usleep(100_000)
}

func percentile(_ values: [Double], _ fraction: Double) -> Double {
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * fraction + 0.5))]
}

/// CLOCK_MONOTONIC in nanoseconds: one clock for every process of the machine.
func monotonicNanoseconds() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}

struct SharedReaderContender: ObservationContender {
    let name = "SharingSQLite SharedReader"

    func writes(_ writes: Int, readers: Int, sharedKey: Bool, table: String) throws -> (
        perWrite: Double, settled: Double
    ) {
        let db = try DatabaseQueue()
        try db.writeWithoutTransaction { try $0.executeScript(observationSchema) }
        let expected = table == "items" ? writes : 1
        let live = (0..<readers).map { index in
            SharedReader(
                wrappedValue: -1,
                .fetchOne(countQuery(table), arguments: [.integer(sharedKey ? 0 : Int64(index))], database: db))
        }
        try waitUntil("the first values") { live.allSatisfy { $0.wrappedValue == (table == "items" ? 0 : 1) } }
        settle()
        let start = DispatchTime.now().uptimeNanoseconds
        for index in 0..<writes {
            try db.write { try $0.execute("INSERT INTO items(title) VALUES (?)", [.text("item \(index)")]) }
        }
        let written = DispatchTime.now().uptimeNanoseconds
        try waitUntil("the final values") { live.allSatisfy { $0.wrappedValue == expected } }
        let settled = DispatchTime.now().uptimeNanoseconds
        return (Double(written - start) / 1e3 / Double(writes), Double(settled - start) / 1e6)
    }

    func latencies(_ samples: Int) throws -> [Double] {
        let db = try DatabaseQueue()
        try db.writeWithoutTransaction { try $0.executeScript(observationSchema) }
        let reader = SharedReader(wrappedValue: -1, .fetchOne(countQuery("items"), arguments: [0], database: db))
        let watcher = try CountWatcher(reader)
        var latencies: [Double] = []
        for index in 1...samples {
            watcher.expect(index)
            let start = monotonicNanoseconds()
            try db.write { try $0.execute("INSERT INTO items(title) VALUES ('x')") }
            latencies.append(Double(watcher.wait() - start) / 1e3)
        }
        return latencies
    }
}

/// Notes when a reader reaches the count it is told to expect (of rows, say), in the Observation
/// callback itself (on the thread that changed the reader, as GRDB's contender notes it in its
/// own callback), so the benchmark can time a commit up to its notification.
final class CountWatcher<Value: Sendable>: Sendable {
    private let reader: SharedReader<Value>
    /// The count a value stands for; nil before the reader's first fetch.
    private let count: @Sendable (Value) -> Int?
    private let expected = Atomic<Int>(0)
    private let notifiedAt = Atomic<UInt64>(0)
    private let notified = DispatchSemaphore(value: 0)
    /// Set once the expected value was noticed, so that it is signalled once.
    private let fired = Atomic<Bool>(false)

    /// Returns once the reader's value counts 0.
    init(_ reader: SharedReader<Value>, count: @escaping @Sendable (Value) -> Int?) throws {
        self.reader = reader
        self.count = count
        try waitUntil("the first value") { count(reader.wrappedValue) == 0 }
    }

    /// Arms the watcher for the next change. Call before the write that makes it.
    func expect(_ value: Int) {
        expected.store(value, ordering: .releasing)
        fired.store(false, ordering: .releasing)
        arm()
    }

    /// Blocks until the reader held the expected value, and returns when that was noticed.
    func wait() -> UInt64 {
        notified.wait()
        return notifiedAt.load(ordering: .acquiring)
    }

    private func arm() {
        withObservationTracking {
            _ = reader.wrappedValue
        } onChange: { [self] in
            let now = monotonicNanoseconds()
            if count(reader.wrappedValue) == expected.load(ordering: .acquiring) {
                fire(at: now)
            } else {
                arm()
            }
        }
        // Tracking starts when the closure returns: a change between its read and then reaches
        // no onChange, so the value is checked once more.
        if count(reader.wrappedValue) == expected.load(ordering: .acquiring) { fire(at: monotonicNanoseconds()) }
    }

    private func fire(at now: UInt64) {
        guard fired.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else {
            return
        }
        notifiedAt.store(now, ordering: .releasing)
        notified.signal()
    }
}

extension CountWatcher where Value == Int? {
    /// Watches a reader of a count.
    convenience init(_ reader: SharedReader<Int?>) throws {
        try self.init(reader) { $0 }
    }
}

func runObservationBenchmarks() throws {
    let writes = 2_000
    let contenders: [any ObservationContender] = [SharedReaderContender(), GRDBObservationContender()]
    // A run of 2,000 cheap writes lasts milliseconds, which a busy machine easily disturbs: many
    // rounds give a steady median. GRDB's runs with readers last seconds, and need fewer.
    let rounds = [SharedReaderContender().name: 21, GRDBObservationContender().name: 5]
    let mostRounds = rounds.values.max()!
    let workloads = [
        (label: "no readers", readers: 0, shared: false, table: "items"),
        (label: "100 readers of the written table", readers: 100, shared: false, table: "items"),
        (label: "100 readers, one shared key", readers: 100, shared: true, table: "items"),
        (label: "1,000 readers of an unwritten table", readers: 1_000, shared: false, table: "quiet"),
    ]
    // Rounds interleave the workloads, so that a noisy moment of the machine spreads over all.
    var results: [String: [String: [(perWrite: Double, settled: Double)]]] = [:]
    for round in 1...mostRounds {
        for contender in contenders where round <= rounds[contender.name]! {
            for workload in workloads where !(workload.shared && contender is GRDBObservationContender) {
                FileHandle.standardError.write(
                    Data("round \(round)/\(rounds[contender.name]!), \(contender.name): \(workload.label)\n".utf8))
                let result = try contender.writes(
                    writes, readers: workload.readers, sharedKey: workload.shared, table: workload.table)
                results[contender.name, default: [:]][workload.label, default: []].append(result)
            }
        }
    }
    print(
        "writes: \(writes) single-row transactions, in-memory DatabaseQueue, median of \(rounds[contenders[0].name]!) rounds (\(contenders[0].name)) and \(rounds[contenders[1].name]!) (\(contenders[1].name));"
    )
    print("µs per write, ms until every reader holds the final value, and the time per write against no readers")
    print("")
    print("| workload | contender | µs per write | settled ms | × no readers |")
    print("|---|---|---:|---:|---:|")
    for contender in contenders {
        guard let byWorkload = results[contender.name],
            let baseline = byWorkload["no readers"].map({ median($0.map(\.perWrite)) })
        else { continue }
        for workload in workloads {
            guard let samples = byWorkload[workload.label] else { continue }
            let perWrite = median(samples.map(\.perWrite))
            let settled = median(samples.map(\.settled))
            print(
                "| \(workload.label) | \(contender.name) | \(String(format: "%.1f", perWrite)) | \(String(format: "%.1f", settled)) | \(String(format: "%.2f", perWrite / baseline)) |"
            )
        }
    }
    print("")
    print("| latency, write start → notification (500 writes) | contender | p50 µs | p99 µs |")
    print("|---|---|---:|---:|")
    for contender in contenders {
        let samples = try contender.latencies(500)
        print(
            "| in-process | \(contender.name) | \(String(format: "%.0f", percentile(samples, 0.5))) | \(String(format: "%.0f", percentile(samples, 0.99))) |"
        )
    }
    print("")
    try runCrossProcessBenchmark(commits: 50)
    print("")
    try runCacheBenchmarks()
    print("")
    try runRowObservationBenchmarks()
}
