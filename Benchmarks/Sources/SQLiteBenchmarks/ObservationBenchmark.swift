import Foundation
import SharingSQLite
import Synchronization

// `--observation`: live values against GRDB's ValueObservation, in one process.
//
// - 100 readers (distinct queries, like 100 observations) on the written table, then the same
//   with one shared key, 2,000 single-row write transactions: time per write, and the time until
//   every reader holds the final count (checked, or the run fails).
// - 1,000 readers on a table that is never written: time per write, against no readers.
// - commit → notification latency in-process (p50, p99), from the start of the write call.
// - a commit by the sqlite3 shell reaching a reader (p50), from the process launch.

protocol ObservationContender {
    var name: String { get }
    /// Runs `writes` single-row inserts into `items` with `readers` live counts of `table`.
    /// Returns microseconds per write and milliseconds until every reader holds the final value.
    func writes(_ writes: Int, readers: Int, sharedKey: Bool, table: String) throws -> (perWrite: Double, settled: Double)
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
        guard DispatchTime.now().uptimeNanoseconds < deadline else { throw BenchmarkError("timed out waiting for \(what)") }
        usleep(100)
    }
}

func percentile(_ values: [Double], _ fraction: Double) -> Double {
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * fraction + 0.5))]
}

struct SharedReaderContender: ObservationContender {
    let name = "SharingSQLite SharedReader"

    func writes(_ writes: Int, readers: Int, sharedKey: Bool, table: String) throws -> (perWrite: Double, settled: Double) {
        let db = try DatabaseQueue()
        try db.writeWithoutTransaction { try $0.executeScript(observationSchema) }
        let expected = table == "items" ? writes : 1
        let live = (0..<readers).map { index in
            SharedReader(wrappedValue: -1, .fetchOne(countQuery(table), arguments: [.integer(sharedKey ? 0 : Int64(index))], database: db))
        }
        try waitUntil("the first values") { live.allSatisfy { $0.wrappedValue == (table == "items" ? 0 : 1) } }
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
        let watcher = CountWatcher(reader)
        defer { watcher.stop() }
        var latencies: [Double] = []
        for index in 1...samples {
            watcher.expect(index)
            let start = DispatchTime.now().uptimeNanoseconds
            try db.write { try $0.execute("INSERT INTO items(title) VALUES ('x')") }
            watcher.wait()
            latencies.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e3)
        }
        return latencies
    }

    /// Milliseconds from launching `sqlite3 PATH "INSERT …"` to the reader's notification, and
    /// from launching it to its exit (the floor).
    func crossProcess(_ samples: Int) throws -> (notified: [Double], processOnly: [Double]) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("observation-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("bench.sqlite").path
        let pool = try DatabasePool(path: path)
        try pool.writeWithoutTransaction { try $0.executeScript(observationSchema) }
        let reader = SharedReader(wrappedValue: -1, .fetchOne(countQuery("items"), arguments: [0], database: pool))
        let watcher = CountWatcher(reader)
        defer { watcher.stop() }
        var notifiedTimes: [Double] = []
        var processTimes: [Double] = []
        for index in 1...samples {
            watcher.expect(index)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["sqlite3", path, "INSERT INTO items(title) VALUES ('shell')"]
            let start = DispatchTime.now().uptimeNanoseconds
            try process.run()
            process.waitUntilExit()
            processTimes.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
            watcher.wait()
            notifiedTimes.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
        }
        return (notifiedTimes, processTimes)
    }
}

/// Signals each time a count reader reaches the value it is told to expect, so the benchmark can
/// time a write up to its notification.
final class CountWatcher: Sendable {
    private let expected = Atomic<Int>(0)
    private let notified = DispatchSemaphore(value: 0)
    private let task = Mutex<Task<Void, Never>?>(nil)

    /// Starts watching and returns once the reader holds its initial count (0).
    init(_ reader: SharedReader<Int?>) {
        let watching = Task { [self] in
            for await value in reader.values where value == expected.load(ordering: .acquiring) { notified.signal() }
        }
        task.withLock { $0 = watching }
        notified.wait()
    }

    func expect(_ value: Int) { expected.store(value, ordering: .releasing) }

    /// Blocks until the reader holds the expected value.
    func wait() { notified.wait() }

    /// Ends the watching task, which holds the watcher.
    func stop() { task.withLock { $0?.cancel() } }
}

func runObservationBenchmarks() throws {
    let writes = 2_000
    let contenders: [any ObservationContender] = [SharedReaderContender(), GRDBObservationContender()]
    print("writes: \(writes) single-row transactions, in-memory DatabaseQueue; µs per write, ms until every reader holds the final value")
    print("")
    print("| workload | contender | µs per write | settled ms |")
    print("|---|---|---:|---:|")
    for contender in contenders {
        for (label, readers, shared, table) in [
            ("no readers", 0, false, "items"),
            ("100 readers of the written table", 100, false, "items"),
            ("100 readers, one shared key", 100, true, "items"),
            ("1,000 readers of an unwritten table", 1_000, false, "quiet"),
        ] {
            if shared && contender is GRDBObservationContender { continue }
            FileHandle.standardError.write(Data("\(contender.name): \(label)\n".utf8))
            let result = try contender.writes(writes, readers: readers, sharedKey: shared, table: table)
            print("| \(label) | \(contender.name) | \(String(format: "%.1f", result.perWrite)) | \(String(format: "%.1f", result.settled)) |")
        }
    }
    print("")
    print("| latency, write start → notification (500 writes) | contender | p50 µs | p99 µs |")
    print("|---|---|---:|---:|")
    for contender in contenders {
        let samples = try contender.latencies(500)
        print("| in-process | \(contender.name) | \(String(format: "%.0f", percentile(samples, 0.5))) | \(String(format: "%.0f", percentile(samples, 0.99))) |")
    }
    if FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3") {
        let (notified, processOnly) = try SharedReaderContender().crossProcess(20)
        print("")
        print("| another process (sqlite3 shell, 20 commits) | p50 ms |")
        print("|---|---:|")
        print("| launch → reader notified | \(String(format: "%.1f", percentile(notified, 0.5))) |")
        print("| launch → shell exited (floor) | \(String(format: "%.1f", percentile(processOnly, 0.5))) |")
    }
}
