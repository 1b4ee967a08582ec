import Foundation
import GRDB
import Observation
import SQLite
import SharingSQLite
import Synchronization

// `--observation` (and `--row-observation` alone): live values that a write cannot change,
// against GRDB's ValueObservation and against this package's table-level observation
// (`SharedReaderCache.observesRows = false`), in one process.
//
// - Many users, one table: 1,000 readers `WHERE user_id = k ORDER BY id DESC LIMIT 20` on a
//   100,000-row table; single-row inserts, each for one user, each awaited until that user's
//   reader holds it before the next. CPU time of the whole process (all threads, refetches
//   included) per write, against the same writes with no reader; refetches per write; and the
//   time from the start of a write until the affected reader holds the new row (p50, p99).
// - Mixed: 1,000 readers `WHERE priority >= p AND due < d` on a 10,000-row table; each write
//   inserts a random task and a sentinel row in one transaction, and is awaited until a reader
//   of the sentinel holds it (it is refetched in the same round as the others).
// - Columns: 100 readers of `title` only; each write updates `done`.

/// Every fetch of a live query in these workloads, whatever the library.
private let fetches = Atomic<Int>(0)

private func cpuMicroseconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1e6
        + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec)
}

private let usersSchema = """
    CREATE TABLE messages(id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL, body TEXT NOT NULL);
    CREATE INDEX messages_user ON messages(user_id, id);
    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100000)
    INSERT INTO messages(user_id, body) SELECT i % 1000 + 1, 'message ' || i FROM n;
    CREATE TABLE tasks(id INTEGER PRIMARY KEY, priority INTEGER NOT NULL, due INTEGER NOT NULL, title TEXT NOT NULL,
        done INTEGER NOT NULL);
    CREATE INDEX tasks_priority ON tasks(priority, due);
    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10000)
    INSERT INTO tasks(priority, due, title, done) SELECT i % 10, i % 1000, 'task ' || i, 0 FROM n;
    CREATE TABLE sentinel(id INTEGER PRIMARY KEY);
    """

struct InboxRequest: FetchKeyRequest {
    let user: Int
    func fetch(_ db: SQLite.Database) throws -> [Int64] {
        fetches.add(1, ordering: .relaxed)
        return try SQLite.Table("messages").filter(SQLite.Column("user_id") == user)
            .select(SQLite.Column("id")).sort(SQLite.Column("id").desc).limit(20)
            .asRequest(of: Int64.self).fetchAll(db)
    }
}

struct AgendaRequest: FetchKeyRequest {
    let priority: Int
    let due: Int
    func fetch(_ db: SQLite.Database) throws -> [Int64] {
        fetches.add(1, ordering: .relaxed)
        return try SQLite.Table("tasks")
            .filter(SQLite.Column("priority") >= priority && SQLite.Column("due") < due)
            .select(SQLite.Column("id")).sort(SQLite.Column("id").desc).limit(20)
            .asRequest(of: Int64.self).fetchAll(db)
    }
}

struct TitlesRequest: FetchKeyRequest {
    let index: Int
    func fetch(_ db: SQLite.Database) throws -> [String] {
        fetches.add(1, ordering: .relaxed)
        return try SQLite.Table("tasks").filter(SQLite.Column("id") > index - 1_000_000)
            .select(SQLite.Column("title")).sort(SQLite.Column("id")).limit(20)
            .asRequest(of: String.self).fetchAll(db)
    }
}

/// Signals when a reader first satisfies a condition, noting the time in the Observation
/// callback (on the thread that changed the reader).
final class Arrival<Value: Sendable>: Sendable {
    private let reader: SharedReader<Value>
    private let condition: @Sendable (Value) -> Bool
    private let at = Atomic<UInt64>(0)
    private let done = DispatchSemaphore(value: 0)

    init(_ reader: SharedReader<Value>, _ condition: @escaping @Sendable (Value) -> Bool) {
        self.reader = reader
        self.condition = condition
        arm()
    }

    private func arm() {
        let satisfied = withObservationTracking {
            condition(reader.wrappedValue)
        } onChange: { [self] in
            let now = monotonicNanoseconds()
            if condition(reader.wrappedValue) {
                at.store(now, ordering: .releasing)
                done.signal()
            } else {
                arm()
            }
        }
        // Tracking starts when the closure returns: a change between its read and then reaches
        // no onChange, so the condition is checked once more (a second signal is harmless: this
        // arrival is waited for once).
        if satisfied || condition(reader.wrappedValue) {
            at.store(monotonicNanoseconds(), ordering: .releasing)
            done.signal()
        }
    }

    func wait() -> UInt64 {
        done.wait()
        return at.load(ordering: .acquiring)
    }
}

struct RowWorkloadResult {
    var cpuPerWrite: Double
    var refetchesPerWrite: Double
    var latencies: [Double]
}

enum RowContender: String, CaseIterable {
    case rows = "SharingSQLite, row level"
    case tables = "SharingSQLite, table level"
    case grdb = "GRDB ValueObservation"
}

/// Many users, one table: `readers` inboxes, `writes` awaited inserts.
func runManyUsers(_ contender: RowContender, readers: Int, writes: Int) throws -> RowWorkloadResult {
    if contender == .grdb { return try grdbManyUsers(readers: readers, writes: writes) }
    SharedReaderCache.observesRows = contender == .rows
    defer { SharedReaderCache.observesRows = true }
    let db = try SQLite.DatabaseQueue()
    try db.writeWithoutTransaction { try $0.executeScript(usersSchema) }
    let live = (0..<readers).map { SharedReader(wrappedValue: [], .fetch(InboxRequest(user: $0 + 1), database: db)) }
    try waitUntil("the first values") { live.allSatisfy { $0.wrappedValue.count == 20 } }
    settle()
    let fetchesBefore = fetches.load(ordering: .relaxed)
    let cpuBefore = cpuMicroseconds()
    var latencies: [Double] = []
    for index in 0..<writes {
        let user = (index * 7919) % max(readers, 1000)
        let start = monotonicNanoseconds()
        let id = try db.write { db -> Int64 in
            try db.execute("INSERT INTO messages(user_id, body) VALUES (?, 'new')", [.integer(Int64(user + 1))])
            return db.lastInsertedRowID
        }
        if user < readers {
            let arrived = Arrival(live[user]) { $0.first == id }.wait()
            latencies.append(Double(arrived - start) / 1e3)
        }
    }
    let cpu = cpuMicroseconds() - cpuBefore
    let refetches = fetches.load(ordering: .relaxed) - fetchesBefore
    return RowWorkloadResult(
        cpuPerWrite: cpu / Double(writes), refetchesPerWrite: Double(refetches) / Double(writes), latencies: latencies)
}

private func grdbManyUsers(readers: Int, writes: Int) throws -> RowWorkloadResult {
    let db = try GRDB.DatabaseQueue()
    try db.write { try $0.execute(sql: usersSchema) }
    let values = Mutex([[Int64]](repeating: [], count: readers))
    let awaited = Mutex<(index: Int, id: Int64, at: UInt64)?>(nil)
    let arrived = DispatchSemaphore(value: 0)
    let queue = DispatchQueue(label: "grdb-row-observation")
    let cancellables = (0..<readers).map { index in
        ValueObservation
            .tracking { db in
                fetches.add(1, ordering: .relaxed)
                return try GRDB.Table("messages").filter(GRDB.Column("user_id") == index + 1)
                    .select(GRDB.Column("id"), as: Int64.self).order(GRDB.Column("id").desc).limit(20).fetchAll(db)
            }
            .removeDuplicates()
            .start(in: db, scheduling: .async(onQueue: queue), onError: { fatalError("\($0)") }) { value in
                let now = monotonicNanoseconds()
                values.withLock { $0[index] = value }
                let hit = awaited.withLock { awaited -> Bool in
                    guard let current = awaited, current.index == index, value.first == current.id else { return false }
                    awaited = (index, current.id, now)
                    return true
                }
                if hit { arrived.signal() }
            }
    }
    defer { for cancellable in cancellables { cancellable.cancel() } }
    try waitUntil("the first values") { values.withLock { $0.allSatisfy { $0.count == 20 } } }
    settle()
    let fetchesBefore = fetches.load(ordering: .relaxed)
    let cpuBefore = cpuMicroseconds()
    var latencies: [Double] = []
    for index in 0..<writes {
        let user = (index * 7919) % max(readers, 1000)
        let start = monotonicNanoseconds()
        // The id is known before the write: ids grow by one.
        let id = try db.read { try Int64.fetchOne($0, sql: "SELECT max(id) + 1 FROM messages") ?? 1 }
        awaited.withLock { $0 = (user, id, 0) }
        try db.write {
            try $0.execute(sql: "INSERT INTO messages(user_id, body) VALUES (?, 'new')", arguments: [user + 1])
        }
        if user < readers {
            arrived.wait()
            latencies.append(Double(awaited.withLock { $0!.at } - start) / 1e3)
        }
    }
    let cpu = cpuMicroseconds() - cpuBefore
    let refetches = fetches.load(ordering: .relaxed) - fetchesBefore
    return RowWorkloadResult(
        cpuPerWrite: cpu / Double(writes), refetchesPerWrite: Double(refetches) / Double(writes), latencies: latencies)
}

/// Mixed ranges, or columns: `readers` live queries, `writes` writes each awaited through a
/// sentinel written in the same transaction.
func runSentinelWorkload(_ contender: RowContender, columns: Bool, readers: Int, writes: Int) throws
    -> RowWorkloadResult
{
    let update: (Int) -> (sql: String, arguments: [SQLite.DatabaseValue]) = { index in
        columns
            ? (
                "UPDATE tasks SET done = ? WHERE id = ?",
                [.integer(Int64(index % 2)), .integer(Int64(index % 10_000 + 1))]
            )
            : (
                "INSERT INTO tasks(priority, due, title, done) VALUES (?, ?, 'new', 0)",
                [.integer(Int64((index * 31) % 10)), .integer(Int64((index * 7919) % 1000))]
            )
    }
    if contender == .grdb {
        let db = try GRDB.DatabaseQueue()
        try db.write { try $0.execute(sql: usersSchema) }
        let sentinelCount = Atomic<Int>(0)
        let queue = DispatchQueue(label: "grdb-sentinel")
        var cancellables = (0..<readers).map { index in
            ValueObservation
                .tracking { db -> [String] in
                    fetches.add(1, ordering: .relaxed)
                    if columns {
                        return try String.fetchAll(
                            db, sql: "SELECT title FROM tasks WHERE id > ? ORDER BY id LIMIT 20",
                            arguments: [index - 1_000_000])
                    }
                    return try String.fetchAll(
                        db, sql: "SELECT id FROM tasks WHERE priority >= ? AND due < ? ORDER BY id DESC LIMIT 20",
                        arguments: [index % 10, (index * 37) % 1000])
                }
                .removeDuplicates()
                .start(in: db, scheduling: .async(onQueue: queue), onError: { fatalError("\($0)") }) { _ in }
        }
        cancellables.append(
            ValueObservation.tracking { try Int.fetchOne($0, sql: "SELECT count(*) FROM sentinel") ?? 0 }
                .start(in: db, scheduling: .async(onQueue: queue), onError: { fatalError("\($0)") }) {
                    sentinelCount.store($0, ordering: .releasing)
                })
        defer { for cancellable in cancellables { cancellable.cancel() } }
        settle()
        try waitUntil("the first values") { fetches.load(ordering: .relaxed) >= readers }
        settle()
        let fetchesBefore = fetches.load(ordering: .relaxed)
        let cpuBefore = cpuMicroseconds()
        for index in 0..<writes {
            let write = update(index)
            try db.write { db in
                try db.execute(sql: write.sql, arguments: StatementArguments(write.arguments.map(\.grdbValue)))
                try db.execute(sql: "INSERT INTO sentinel DEFAULT VALUES")
            }
            try waitUntil("the sentinel") { sentinelCount.load(ordering: .acquiring) == index + 1 }
        }
        let cpu = cpuMicroseconds() - cpuBefore
        let refetches = fetches.load(ordering: .relaxed) - fetchesBefore
        return RowWorkloadResult(
            cpuPerWrite: cpu / Double(writes), refetchesPerWrite: Double(refetches) / Double(writes), latencies: [])
    }
    SharedReaderCache.observesRows = contender == .rows
    defer { SharedReaderCache.observesRows = true }
    let db = try SQLite.DatabaseQueue()
    try db.writeWithoutTransaction { try $0.executeScript(usersSchema) }
    let live: [any Sendable] =
        columns
        ? (0..<readers).map { SharedReader(wrappedValue: [], .fetch(TitlesRequest(index: $0), database: db)) }
        : (0..<readers).map {
            SharedReader(
                wrappedValue: [], .fetch(AgendaRequest(priority: $0 % 10, due: ($0 * 37) % 1000), database: db))
        }
    let sentinel = SharedReader(wrappedValue: -1, .fetchOne("SELECT count(*) FROM sentinel", database: db))
    try waitUntil("the first values") { fetches.load(ordering: .relaxed) >= readers && sentinel.wrappedValue == 0 }
    settle()
    let fetchesBefore = fetches.load(ordering: .relaxed)
    let cpuBefore = cpuMicroseconds()
    for index in 0..<writes {
        let write = update(index)
        try db.write { db in
            try db.execute(write.sql, write.arguments)
            try db.execute("INSERT INTO sentinel DEFAULT VALUES")
        }
        _ = Arrival(sentinel) { $0 == index + 1 }.wait()
    }
    let cpu = cpuMicroseconds() - cpuBefore
    let refetches = fetches.load(ordering: .relaxed) - fetchesBefore
    withExtendedLifetime(live) {}
    return RowWorkloadResult(
        cpuPerWrite: cpu / Double(writes), refetchesPerWrite: Double(refetches) / Double(writes), latencies: [])
}

extension SQLite.DatabaseValue {
    var grdbValue: GRDB.DatabaseValue {
        switch self {
        case .integer(let value): return Self.grdb(value)
        case .text(let value): return Self.grdb(value)
        default: return .null
        }
    }

    // Int64 and String convert to both packages' values: the generic parameter picks GRDB's.
    private static func grdb(_ value: some GRDB.DatabaseValueConvertible) -> GRDB.DatabaseValue {
        value.databaseValue
    }
}

func runRowObservationBenchmarks() throws {
    func log(_ text: String) { FileHandle.standardError.write(Data("\(text)\n".utf8)) }
    print("Row-level observation: CPU µs per write over all threads (refetches included), refetches per write,")
    print("and for the inboxes the time from the start of a write until the affected reader holds the new row.")
    print("Table-level contenders refetch every reader on every write, so they run fewer writes (given).")
    print("")
    print("| workload | contender | writes | CPU µs per write | × no readers | refetches per write | p50 µs | p99 µs |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for contender in RowContender.allCases {
        log("many users: \(contender.rawValue), no readers")
        let baseline = try runManyUsers(contender, readers: 0, writes: 2_000)
        let writes = contender == .rows ? 2_000 : 100
        log("many users: \(contender.rawValue), 1,000 readers")
        let result = try runManyUsers(contender, readers: 1_000, writes: writes)
        print(
            "| many users: no readers | \(contender.rawValue) | 2000 | \(String(format: "%.1f", baseline.cpuPerWrite)) | 1.00 | 0 | | |"
        )
        print(
            "| many users: 1,000 inboxes | \(contender.rawValue) | \(writes) | \(String(format: "%.1f", result.cpuPerWrite)) | \(String(format: "%.2f", result.cpuPerWrite / baseline.cpuPerWrite)) | \(String(format: "%.2f", result.refetchesPerWrite)) | \(String(format: "%.0f", percentile(result.latencies, 0.5))) | \(String(format: "%.0f", percentile(result.latencies, 0.99))) |"
        )
    }
    for contender in RowContender.allCases {
        let writes = contender == .rows ? 500 : 50
        log("mixed: \(contender.rawValue)")
        let result = try runSentinelWorkload(contender, columns: false, readers: 1_000, writes: writes)
        print(
            "| mixed: 1,000 range readers | \(contender.rawValue) | \(writes) | \(String(format: "%.1f", result.cpuPerWrite)) | | \(String(format: "%.2f", result.refetchesPerWrite)) | | |"
        )
    }
    for contender in RowContender.allCases {
        log("columns: \(contender.rawValue)")
        let result = try runSentinelWorkload(contender, columns: true, readers: 100, writes: 500)
        print(
            "| columns: 100 readers of title, writes to done | \(contender.rawValue) | 500 | \(String(format: "%.1f", result.cpuPerWrite)) | | \(String(format: "%.2f", result.refetchesPerWrite)) | | |"
        )
    }
}
