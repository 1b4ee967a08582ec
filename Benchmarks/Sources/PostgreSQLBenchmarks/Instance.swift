import Foundation
import Logging
import PostgreSQL
import PostgresNIO
import SQLite
import SharingSQLite
import Synchronization

// Instance B: the benchmark launched again by itself (`--instance HOST PORT`), a second process
// of the same service. It reads one command per line on standard input and answers on standard
// output; the times it answers with are CLOCK_MONOTONIC, which both processes share.
//
//   latency              loads the counter reader and the raw floor; answers "ready"
//   expect V             arms the counter reader for V: "armed", then "seen TIME" once it holds V
//   expect-raw V         the same for the raw floor: "seen TIME NOTIFIED_TIME"
//   live|poll MS V       50 readers of buckets 50–99 (SharedReaders, or pollers every MS ms),
//                        each holding V: "ready"
//   target V             arms them for V: "armed", then "settled LATEST SUM" once all hold V
//   usage                "usage CPU_NANOSECONDS QUERIES"
//   rss                  "rss KILOBYTES": the process's resident memory (VmRSS)
//   inboxes FIRST COUNT  the inboxes of users FIRST ..< FIRST+COUNT, loaded: "ready"
//   inbox-set USER…      the inboxes of the users named, loaded: "ready"
//   expect-inbox USER ID arms USER's inbox for message ID: "armed", then "seen TIME" once it
//                        holds it
//   expect-batch USER:ID…
//                        arms each USER's inbox for its message ID: "armed", then "settled TIME"
//                        once every one holds its message (TIME the last of them)
//   expect-revision R    arms every inbox for revision R (the highest it holds): "armed", then
//                        "settled TIME" once every inbox holds it
//   stop                 drops the readers: "stopped"
//
// An armed wait that is not met within 10 s (60 s for a batch or a revision) answers "timeout"
// instead.

/// The query of the counter's live reader.
let counterSQL = "SELECT n FROM counter WHERE id = 1"

/// The floor of a live value written by hand with raw PostgresNIO: a connection that listens
/// on a channel of its own (notified by a trigger of the same shape as the package's), and one
/// that runs the reader's query again on each notification, both on the event loop.
final class RawFloor: Sendable {
    let arrivals = Arrivals(count: 1)
    private let notifiedAt = Atomic<UInt64>(0)
    private let listener: PostgresConnection
    private let reader: PostgresConnection

    init(server: Server, logger: Logger) async throws {
        listener = try await PostgresConnection.connect(configuration: server.rawConfiguration, id: 2, logger: logger)
        reader = try await PostgresConnection.connect(configuration: server.rawConfiguration, id: 3, logger: logger)
        listener.addListener(channel: "bench_raw") { [self] _, _ in
            notifiedAt.store(monotonicNanoseconds(), ordering: .releasing)
            _ = reader.query("SELECT n FROM raw_counter WHERE id = 1", logger: logger) { row in
                self.arrivals.report(0, value: try row.decode(Int.self), at: monotonicNanoseconds())
            }
        }
        _ = try await listener.query("LISTEN bench_raw", logger: logger)
    }

    var lastNotification: UInt64 { notifiedAt.load(ordering: .acquiring) }
}

/// Arms `arrivals` for `value` and answers when it is met, or "timeout" after `seconds`.
func arm(
    _ arrivals: Arrivals, _ value: Int, seconds: Double = 10,
    answer: @escaping @Sendable (UInt64, UInt64) -> String
) {
    arrivals.expect(value) { latest, sum in send(answer(latest, sum)) }
    send("armed")
    DispatchQueue.global().asyncAfter(deadline: .now() + seconds) {
        if arrivals.expire(value) { send("timeout") }
    }
}

/// The inboxes of one batch write, each waiting for a message of its own: answers "settled
/// TIME" once the last of them holds it, or "timeout" after 60 s.
final class BatchWait: Sendable {
    private struct State {
        var remaining: Int
        var latest: UInt64 = 0
        var answered = false
    }

    private let state: Mutex<State>

    /// Arms each inbox of `targets` for its message id, and answers "armed".
    init(_ targets: [(arrivals: Arrivals, id: Int)]) {
        state = Mutex(State(remaining: targets.count))
        for target in targets {
            target.arrivals.expect(target.id) { [self] latest, _ in arrived(at: latest) }
        }
        send("armed")
        DispatchQueue.global().asyncAfter(deadline: .now() + 60) { [self] in
            let expired = state.withLock { state in
                defer { state.answered = true }
                return !state.answered
            }
            if expired { send("timeout") }
        }
    }

    private func arrived(at time: UInt64) {
        let settled: UInt64? = state.withLock { state in
            state.remaining -= 1
            state.latest = max(state.latest, time)
            guard state.remaining == 0, !state.answered else { return nil }
            state.answered = true
            return state.latest
        }
        if let settled { send("settled \(settled)") }
    }
}

/// The process's resident memory in kilobytes: VmRSS of /proc/self/status, 0 where there is none.
func residentKilobytes() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        return line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first.flatMap { Int($0) } ?? 0
    }
    return 0
}

@MainActor
func runInstance(server: Server) async throws {
    var logger = Logger(label: "instance")
    logger.logLevel = .critical
    let database = try await PostgreSQLDatabase(server.packageConfiguration)
    let pollDatabase = try await PostgreSQLDatabase(server.packageConfiguration)
    var counter: (reader: SharedReader<Int>, arrivals: Arrivals)?
    var floor: RawFloor?
    var readers: (any ReaderSet)?
    var inboxes: Inboxes?
    let buckets = 50..<100

    while let line = readLine() {
        let words = line.split(separator: " ").map(String.init)
        guard let command = words.first else { continue }
        let number = words.count > 1 ? Int(words[1]) ?? 0 : 0
        switch command {
        case "latency":
            let reader: SharedReader<Int> = SharedReader(wrappedValue: -1, .fetchOne(counterSQL, database: database))
            try await reader.load()
            let arrivals = Arrivals(count: 1)
            watch(reader, member: 0, arrivals: arrivals)
            counter = (reader, arrivals)
            floor = try await RawFloor(server: server, logger: logger)
            send("ready")
        case "expect":
            guard let counter else { throw BenchmarkError("expect before latency") }
            arm(counter.arrivals, number) { latest, _ in "seen \(latest)" }
        case "expect-raw":
            guard let floor else { throw BenchmarkError("expect-raw before latency") }
            arm(floor.arrivals, number) { latest, _ in "seen \(latest) \(floor.lastNotification)" }
        case "live":
            readers = try await LiveReaders(database: database, buckets: buckets, current: number)
            send("ready")
        case "poll":
            let current = words.count > 2 ? Int(words[2]) ?? 0 : 0
            readers = try await Pollers(
                database: pollDatabase, buckets: buckets, interval: .milliseconds(number), current: current)
            send("ready")
        case "target":
            guard let readers else { throw BenchmarkError("target before readers") }
            arm(readers.arrivals, number) { latest, sum in "settled \(latest) \(sum)" }
        case "inboxes":
            let count = words.count > 2 ? Int(words[2]) ?? 0 : 0
            guard number >= 0, count >= 0, number <= Int.max - count else {
                throw BenchmarkError("no inboxes for \(line)")
            }
            inboxes = try await Inboxes(database: database, users: Array(number..<(number + count)))
            send("ready")
        case "inbox-set":
            let users = try words.dropFirst().map { (word: String) throws -> Int in
                guard let user = Int(word) else { throw BenchmarkError("no user in \(line)") }
                return user
            }
            inboxes = try await Inboxes(database: database, users: users)
            send("ready")
        case "expect-inbox":
            let id = words.count > 2 ? Int(words[2]) ?? 0 : 0
            guard let arrivals = inboxes?.arrivals(of: number) else {
                throw BenchmarkError("expect-inbox for user \(number), whose inbox this instance does not hold")
            }
            arm(arrivals, id) { latest, _ in "seen \(latest)" }
        case "expect-batch":
            guard let inboxes else { throw BenchmarkError("expect-batch before inboxes") }
            let targets = try words.dropFirst().map { (word: String) throws -> (arrivals: Arrivals, id: Int) in
                let parts = word.split(separator: ":")
                guard parts.count == 2, let user = Int(parts[0]), let id = Int(parts[1]),
                    let arrivals = inboxes.arrivals(of: user)
                else { throw BenchmarkError("expect-batch of \(word), whose inbox this instance does not hold") }
                return (arrivals: arrivals, id: id)
            }
            _ = BatchWait(targets)
        case "expect-revision":
            guard let inboxes else { throw BenchmarkError("expect-revision before inboxes") }
            arm(inboxes.revisions, number, seconds: 60) { latest, _ in "settled \(latest)" }
        case "rss":
            send("rss \(residentKilobytes())")
        case "usage":
            send("usage \(cpuNanoseconds()) \(readers?.queries ?? 0)")
        case "stop":
            readers?.stop()
            readers = nil
            inboxes?.stop()
            inboxes = nil
            send("stopped")
        default:
            throw BenchmarkError("unknown command \(line)")
        }
    }
    await database.close()
    await pollDatabase.close()
}
