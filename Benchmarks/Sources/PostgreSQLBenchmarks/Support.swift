import Foundation
import Observation
import PostgreSQL
import PostgresNIO
import SQLite
import SharingSQLite
import Synchronization

/// CLOCK_MONOTONIC in nanoseconds: one clock for every process of the machine, so a time noted
/// by one instance can be subtracted from a time noted by the other.
func monotonicNanoseconds() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}

/// CPU time (user and system) this process has used, in nanoseconds.
func cpuNanoseconds() -> UInt64 {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    let user = UInt64(usage.ru_utime.tv_sec) * 1_000_000_000 + UInt64(usage.ru_utime.tv_usec) * 1_000
    let system = UInt64(usage.ru_stime.tv_sec) * 1_000_000_000 + UInt64(usage.ru_stime.tv_usec) * 1_000
    return user + system
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

func percentile(_ values: [Double], _ fraction: Double) -> Double {
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * fraction + 0.5))]
}

func format(_ value: Double, _ digits: Int = 2) -> String {
    String(format: "%.\(digits)f", value)
}

struct BenchmarkError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}

/// The server, as the benchmark's arguments name it: a host for TCP, or a folder holding the
/// server's Unix socket.
struct Server: Sendable {
    let host: String
    let port: Int

    var isUnixSocket: Bool { host.hasPrefix("/") }

    var packageConfiguration: PostgreSQLDatabase.Configuration {
        .init(
            address: isUnixSocket ? .unixSocket(directory: host, port: port) : .host(host, port: port),
            user: "postgres", database: "postgres")
    }

    var rawConfiguration: PostgresConnection.Configuration {
        isUnixSocket
            ? .init(
                unixSocketPath: "\(host)/.s.PGSQL.\(port)", username: "postgres", password: nil,
                database: "postgres")
            : .init(
                host: host, port: port, username: "postgres", password: nil, database: "postgres", tls: .disable)
    }

    var description: String { isUnixSocket ? "Unix socket" : "TCP \(host)" }
}

/// Writes one line to standard output at once, unbuffered: the other instance waits for it.
func send(_ line: String) {
    let bytes = Array((line + "\n").utf8)
    bytes.withUnsafeBytes { buffer in
        var offset = 0
        while offset < buffer.count {
            let written = write(1, buffer.baseAddress! + offset, buffer.count - offset)
            if written <= 0 { return }
            offset += written
        }
    }
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

/// Notes when each of a set of readers first holds the value it is told to expect, and calls
/// back once all of them do, with the latest of those times and their sum.
final class Arrivals: Sendable {
    private struct State {
        var target: Int?
        var arrived: [Bool]
        var remaining = 0
        var latest: UInt64 = 0
        var sum: UInt64 = 0
        var done: (@Sendable (_ latest: UInt64, _ sum: UInt64) -> Void)?
    }

    let count: Int
    private let state: Mutex<State>

    init(count: Int) {
        self.count = count
        state = Mutex(State(arrived: Array(repeating: false, count: count)))
    }

    /// Arms for `value`; call before the write that makes it.
    func expect(_ value: Int, done: @escaping @Sendable (_ latest: UInt64, _ sum: UInt64) -> Void) {
        state.withLock { state in
            state.target = value
            state.arrived = Array(repeating: false, count: count)
            state.remaining = count
            state.latest = 0
            state.sum = 0
            state.done = done
        }
    }

    /// Drops the callback for `value` if it has not been called yet, and says whether it had not.
    func expire(_ value: Int) -> Bool {
        state.withLock { state in
            guard state.target == value, state.done != nil else { return false }
            state.done = nil
            return true
        }
    }

    /// Reader `member` held `value` at `time`.
    func report(_ member: Int, value: Int, at time: UInt64) {
        let finished: (@Sendable (UInt64, UInt64) -> Void, UInt64, UInt64)? = state.withLock { state in
            guard state.target == value, !state.arrived[member] else { return nil }
            state.arrived[member] = true
            state.remaining -= 1
            state.latest = max(state.latest, time)
            state.sum += time
            guard state.remaining == 0, let done = state.done else { return nil }
            state.done = nil
            return (done, state.latest, state.sum)
        }
        if let (done, latest, sum) = finished { done(latest, sum) }
    }
}

/// Reports every value `reader` takes to `arrivals`, as member `member`, from the Observation
/// callback itself (on the thread that changed the reader).
func watch(_ reader: SharedReader<Int>, member: Int, arrivals: Arrivals) {
    let value = withObservationTracking {
        reader.wrappedValue
    } onChange: { [weak reader] in
        guard let reader else { return }
        arrivals.report(member, value: reader.wrappedValue, at: monotonicNanoseconds())
        watch(reader, member: member, arrivals: arrivals)
    }
    // Tracking starts when the closure returns: a change between its read and then reaches no
    // onChange, so the value is reported once more.
    arrivals.report(member, value: value, at: monotonicNanoseconds())
}

/// A count that tasks add to.
final class Counter: Sendable {
    private let value = Atomic<Int>(0)

    func add() { value.add(1, ordering: .relaxed) }

    var current: Int { value.load(ordering: .relaxed) }
}

/// The readers one instance holds for the 100-reader measure: `SharedReader`s, or pollers.
protocol ReaderSet: Sendable {
    var arrivals: Arrivals { get }
    /// Queries run so far (pollers only; the live readers' queries are counted on the server).
    var queries: Int { get }
    func stop()
}

/// The query of the reader of bucket `$1`.
let tallySQL = "SELECT n FROM tallies WHERE bucket = $1"

/// `SharedReader`s of `tallySQL`, one per bucket, kept current by the package.
final class LiveReaders: ReaderSet {
    let arrivals: Arrivals
    private let readers: Mutex<[SharedReader<Int>]>

    /// Loads a reader per bucket and returns once each holds `current`.
    init(database: PostgreSQLDatabase, buckets: Range<Int>, current: Int) async throws {
        arrivals = Arrivals(count: buckets.count)
        var readers: [SharedReader<Int>] = []
        for bucket in buckets {
            let reader: SharedReader<Int> = SharedReader(
                wrappedValue: -1, .fetchOne(tallySQL, arguments: [.integer(Int64(bucket))], database: database))
            try await reader.load()
            readers.append(reader)
        }
        self.readers = Mutex(readers)
        try await waitForAll(arrivals, current) {
            for (member, reader) in readers.enumerated() { watch(reader, member: member, arrivals: arrivals) }
        }
    }

    var queries: Int { 0 }

    func stop() { readers.withLock { $0 = [] } }
}

/// What users write by hand today: each reader re-runs `tallySQL` every `interval`, from a
/// random phase, on one connection that the instance's pollers share.
final class Pollers: ReaderSet {
    let arrivals: Arrivals
    private let counter = Counter()
    private let tasks: Mutex<[Task<Void, Never>]>

    /// Starts a poller per bucket and returns once each holds `current`.
    init(database: PostgreSQLDatabase, buckets: Range<Int>, interval: Duration, current: Int) async throws {
        let arrivals = Arrivals(count: buckets.count)
        self.arrivals = arrivals
        tasks = Mutex([])
        try await waitForAll(arrivals, current) { [self] in
            let started = buckets.enumerated().map { member, bucket in
                Task {
                    let clock = ContinuousClock()
                    var next = clock.now + interval * Double.random(in: 0..<1)
                    while !Task.isCancelled {
                        do { try await clock.sleep(until: next) } catch { return }
                        next += interval
                        guard let row = try? await database.fetchOne(tallySQL, [.integer(Int64(bucket))]),
                            let value: Int = try? row[0]
                        else { continue }
                        self.counter.add()
                        arrivals.report(member, value: value, at: monotonicNanoseconds())
                    }
                }
            }
            tasks.withLock { $0 = started }
        }
    }

    var queries: Int { counter.current }

    func stop() {
        for task in tasks.withLock({ $0 }) { task.cancel() }
    }
}

/// Arms `arrivals` for `value`, runs `start`, and waits until every member holds the value.
func waitForAll(_ arrivals: Arrivals, _ value: Int, _ start: () -> Void) async throws {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        arrivals.expect(value) { _, _ in continuation.resume() }
        start()
    }
}
