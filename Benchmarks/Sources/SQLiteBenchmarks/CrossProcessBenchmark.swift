import Foundation
import SharingSQLite

// A commit by another process reaching a reader: the benchmark launches itself again as a
// writer (`--observation-writer PATH`), a process that stays up and commits one row each time it
// reads a line on stdin, then prints the CLOCK_MONOTONIC time right after the commit returned.
// CLOCK_MONOTONIC is one clock for all processes of a Linux machine, so the reader's time of
// notification minus that time is the delay from the commit to the notification, without the
// launch of a process in it.

/// The writer process's loop: one committed `insert` per line read, answered with its time.
func runObservationWriter(path: String, insert: String) throws {
    let db = try Database(path: path)
    while readLine() != nil {
        try db.execute(insert)
        let committed = monotonicNanoseconds()
        FileHandle.standardOutput.write(Data("\(committed)\n".utf8))
    }
}

/// What the writer process commits unless told otherwise: a row of the observation schema.
let defaultObservationInsert = "INSERT INTO items(title) VALUES ('another process')"

func runCrossProcessBenchmark(commits: Int) throws {
    let latencies = try countReaderLatencies(commits: commits)
    print("| another process (a writer process that stays up, \(commits) commits) | p50 ms | p99 ms |")
    print("|---|---:|---:|")
    print(
        "| its commit → reader notified | \(String(format: "%.2f", percentile(latencies, 0.5))) | \(String(format: "%.2f", percentile(latencies, 0.99))) |"
    )
}

/// Milliseconds from each commit of another process to a live count of the table it writes, on
/// a fresh database.
func countReaderLatencies(commits: Int) throws -> [Double] {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
        "observation-bench-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let path = directory.appendingPathComponent("bench.sqlite").path
    let pool = try DatabasePool(path: path)
    try pool.writeWithoutTransaction { try $0.executeScript(observationSchema) }
    let reader = SharedReader(wrappedValue: -1, .fetchOne(countQuery("items"), arguments: [0], database: pool))
    let watcher = try CountWatcher(reader)
    return try crossProcessLatencies(path: path, insert: defaultObservationInsert, commits: commits, watcher: watcher)
}

/// Launches the writer process on `path`, has it commit `insert` `commits` times, one at a time,
/// and returns the milliseconds from each commit to `watcher`'s reader counting one more row.
func crossProcessLatencies<Value>(path: String, insert: String, commits: Int, watcher: CountWatcher<Value>) throws
    -> [Double]
{
    let writer = Process()
    writer.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
    writer.arguments = ["--observation-writer", path, insert]
    let input = Pipe()
    let output = Pipe()
    writer.standardInput = input
    writer.standardOutput = output
    try writer.run()
    defer {
        try? input.fileHandleForWriting.close()
        writer.waitUntilExit()
    }
    var lines = LineReader(output.fileHandleForReading)

    var latencies: [Double] = []
    for index in 1...commits {
        watcher.expect(index)
        input.fileHandleForWriting.write(Data("\n".utf8))
        guard let line = lines.next(), let committed = UInt64(line) else {
            throw BenchmarkError("the writer process stopped")
        }
        let notified = watcher.wait()
        latencies.append(Double(Int64(bitPattern: notified &- committed)) / 1e6)
    }
    return latencies
}

/// Lines from a pipe, read as they come.
struct LineReader {
    private let handle: FileHandle
    private var buffer: [UInt8] = []

    init(_ handle: FileHandle) { self.handle = handle }

    mutating func next() -> String? {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            let chunk = handle.availableData
            if chunk.isEmpty { return nil }
            buffer.append(contentsOf: chunk)
        }
    }
}
