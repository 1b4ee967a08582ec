import Foundation
import LiveValueTesting
import PostgreSQL
import PostgreSQLTestServer
import Testing

/// Random writes against many random live readers in three other processes: every live value
/// ends equal to a fresh fetch of its request, whatever the writes were.
///
/// Three `PostgreSQLInstance` processes hold 500 readers in all, each a distinct random filter
/// (with sometimes another order and a limit) on `msgs`; the second and third connect as a role
/// that may only SELECT the tables. This process then commits 2,000 random
/// writes of every kind, asks every instance to check its readers after the first 1,000 and
/// after the last, and requires every reader to reach the fresh value within the check's limit.
/// The last quarter of the writes, and 5 commits after them each checked on its own, are
/// statements that notify their rows, so that no later table-wide change hides a reader that a
/// wrong row-level decision left stale.
///
/// Seeded: the seed is printed, and `LIVE_DIFFERENTIAL_SEED` picks it. `.ci/run` sets
/// `LIVE_DIFFERENTIAL_SKIP` for its Thread Sanitizer pass, whose instrumented processes would take
/// many minutes here; its plain pass runs it.
@Suite(
    .postgreSQLInstalled, .timeLimit(.minutes(5)),
    .enabled(if: ProcessInfo.processInfo.environment["LIVE_DIFFERENTIAL_SKIP"] == nil, "LIVE_DIFFERENTIAL_SKIP is set"))
struct LiveDifferentialTests {
    static let seed: UInt64 =
        ProcessInfo.processInfo.environment["LIVE_DIFFERENTIAL_SEED"].flatMap(UInt64.init)
        ?? UInt64.random(in: 0...9999)
    static let readerCount = 500
    static let processCount = 3
    static let writeCount = 2_000
    /// Longer than an instance's own limit for a check (its fresh fetches, then 20 seconds), which
    /// then reports what did not match; generous, for a loaded machine.
    static let checkLimit: Duration = .seconds(120)

    /// A default collation that is not bytes' order, under which `tag` compares and sorts.
    static let icu = "LOCALE_PROVIDER icu ICU_LOCALE 'en-US' LOCALE 'C.UTF-8' TEMPLATE template0"

    static let schema = [
        "CREATE TABLE parents(id BIGINT PRIMARY KEY)",
        """
        CREATE TABLE msgs(
            id BIGINT PRIMARY KEY,
            parent_id BIGINT REFERENCES parents(id) ON DELETE CASCADE,
            user_id INT4,
            n INT8 NOT NULL,
            body TEXT COLLATE "C",
            tag TEXT,
            label VARCHAR(20),
            score FLOAT8,
            amount NUMERIC,
            flag BOOL)
        """,
    ]

    @Test func liveValuesInThreeProcessesEndEqualToFreshFetches() async throws {
        let seed = Self.seed
        print("LiveDifferentialTests: seed \(seed) (LIVE_DIFFERENTIAL_SEED=\(seed) repeats this run)")
        let start = ContinuousClock.now
        let configuration = try await TestServer.makeConfiguration(options: Self.icu)
        let db = try await PostgreSQLDatabase(configuration)
        defer { Task { [db] in await db.close() } }
        for statement in Self.schema { try await db.execute(statement) }
        try await db.installChangeNotifications(on: ["parents", "msgs"])
        // The instances after the first read as the usual read-only role: SELECT on the tables,
        // nothing more, as the change log's docs promise is enough.
        let reader = "differential_reader_" + UUID().uuidString.prefix(8).lowercased()
        try await db.execute("CREATE ROLE \(reader) LOGIN")
        try await db.execute("GRANT SELECT ON parents, msgs TO \(reader)")

        var writes = LiveWriteGenerator(seed: seed)
        for statement in writes.initialRows() { try await db.execute(statement.sql, statement.arguments) }

        var instances: [InstanceProcess] = []
        var first = 0
        for count in Self.readerCounts {
            instances.append(
                try InstanceProcess(
                    database: configuration.database, mode: "differential",
                    arguments: [String(seed), String(first), String(count)] + (instances.isEmpty ? [] : [reader])))
            first += count
        }
        do {
            try await run(instances, writes: &writes, db: db, seed: seed, start: start)
        } catch {
            // Their input ends: they exit.
            for instance in instances { _ = try? instance.finish() }
            throw error
        }
        for instance in instances { #expect(try instance.finish() == 0) }
    }

    /// Waits for the instances' readers, then writes, and checks halfway and at the end.
    func run(
        _ instances: [InstanceProcess], writes: inout LiveWriteGenerator, db: PostgreSQLDatabase, seed: UInt64,
        start: ContinuousClock.Instant
    ) async throws {
        for (instance, count) in zip(instances, Self.readerCounts) {
            _ = try await instance.lines(until: "loaded \(count)", within: Self.checkLimit)
        }
        print("LiveDifferentialTests: readers loaded after \(ContinuousClock.now - start)")

        var written = 0
        var checkedHalfway = false
        var round = 0
        while written < Self.writeCount {
            round += 1
            if round % 4 == 0 {
                // Three commits at once: while one holds the wake-up lock, the others' triggers
                // wake no listener, and their records must be read all the same.
                let batch = (0..<3).map { _ in writes.nextCommit() }
                try await Self.concurrently(batch, on: db)
                // Their order, and a rollback, decide which parents are left.
                writes.parents = Set(try await db.fetchAll("SELECT id FROM parents").map { try $0["id"] as Int64 })
                written += batch.map(\.count).reduce(0, +)
                continue
            }
            let commit = writes.nextCommit()
            if commit.count == 1 {
                try await db.execute(commit[0].sql, commit[0].arguments)
            } else {
                try await db.transaction { tx in
                    for statement in commit { try await tx.execute(statement.sql, statement.arguments) }
                }
            }
            written += commit.count
            if !writes.smallOnly, written >= Self.writeCount * 3 / 4 {
                // The last quarter: row-level decisions alone decide which readers refetch.
                if let delete = writes.bulkDelete() {
                    try await db.execute(delete.sql, delete.arguments)
                    written += 1
                }
                writes.smallOnly = true
            }
            if !checkedHalfway, written >= Self.writeCount / 2 {
                checkedHalfway = true
                if let delete = writes.bulkDelete() {
                    try await db.execute(delete.sql, delete.arguments)
                    written += 1
                }
                print("LiveDifferentialTests: \(written) writes after \(ContinuousClock.now - start)")
                try await check(instances, after: written, seed: seed)
                print("LiveDifferentialTests: \(written) writes checked after \(ContinuousClock.now - start)")
            }
        }
        print("LiveDifferentialTests: \(written) writes after \(ContinuousClock.now - start)")
        try await check(instances, after: written, seed: seed)
        // Then commits each checked at once: a reader that a wrong skip left stale has no later
        // write to repair it before it is compared.
        for _ in 0..<Self.commitsCheckedOneByOne {
            let commit = writes.nextCommit()
            try await db.transaction { tx in
                for statement in commit { try await tx.execute(statement.sql, statement.arguments) }
            }
            written += commit.count
            try await check(instances, after: written, seed: seed)
        }
        print(
            "LiveDifferentialTests: \(written) writes in \(writes.commits) commits checked after \(ContinuousClock.now - start)"
        )
    }

    /// Runs `commits` concurrently, each in a transaction of its own. Random writes at once may
    /// deadlock or collide on a key: such a commit rolls back, which changes nothing a reader
    /// shows, and any other failure fails the test.
    static func concurrently(_ commits: [[LiveWriteStatement]], on db: PostgreSQLDatabase) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for commit in commits {
                group.addTask {
                    do {
                        try await db.transaction { tx in
                            for statement in commit { try await tx.execute(statement.sql, statement.arguments) }
                        }
                    } catch let error as PostgreSQLError
                        where ["40P01", "40001"].contains(error.sqlState) || error.sqlState?.hasPrefix("23") == true
                    {
                        return
                    } catch is ConstraintViolation {
                        return
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    /// The commits after the last check that are each checked on their own.
    static let commitsCheckedOneByOne = 5

    /// The number of readers of each process, as the test divides them.
    static let readerCounts: [Int] = {
        var counts: [Int] = []
        var first = 0
        for process in 0..<processCount {
            let count = (readerCount - first) / (processCount - process)
            counts.append(count)
            first += count
        }
        return counts
    }()

    /// Asks every instance to check its readers, and requires all of them to match.
    func check(_ instances: [InstanceProcess], after written: Int, seed: UInt64) async throws {
        for instance in instances { try instance.send("check") }
        var ok = 0
        var mismatches: [String] = []
        for instance in instances {
            for line in try await instance.lines(until: "done", within: Self.checkLimit) {
                if line.hasPrefix("ok ") { ok += 1 } else { mismatches.append(line) }
            }
        }
        let report = mismatches.prefix(10).joined(separator: "\n")
        #expect(
            mismatches.isEmpty,
            "seed \(seed), after \(written) writes: \(mismatches.count) readers differ from a fresh fetch:\n\(report)")
        #expect(ok == Self.readerCount, "seed \(seed), after \(written) writes: \(ok) readers answered ok")
    }
}

/// One statement and its arguments.
struct LiveWriteStatement {
    var sql: String
    var arguments: [DatabaseValue] = []
}

/// Random writes on `msgs` and `parents` that never fail: it tracks the parents that exist and the
/// primary keys used, so that every foreign key holds and every insert's key is new.
struct LiveWriteGenerator {
    private var random: SeededGenerator
    /// The next primary key no row ever had.
    private var nextID: Int64 = 1
    /// The parents that exist: after commits run at once, those the database holds.
    var parents = Set<Int64>()
    /// A bulk insert's keys, deleted a few commits later so that the table stays small enough for
    /// 500 readers to refetch quickly.
    private var bulk: (ids: ClosedRange<Int64>, deleteAfter: Int)?
    /// Only statements that notify their rows: a change every reader refetches for (a truncate, a
    /// bulk statement, a long text) would also repair a reader that a wrong skip left stale.
    var smallOnly = false
    /// Commits generated so far.
    private(set) var commits = 0

    static let columns = "id, parent_id, user_id, n, body, tag, label, score, amount, flag"
    static let texts: [String] = [
        "", "a", "A", "b", "B", "ab", "a b", "é", "É", "e", "z", "Z", "zebra", "Zebra", "10", "9", "_", "%", "Ünïcode",
        "ünïcode", "m", "x", "Éa", "eb", "mm",
    ]
    static let integers: [Int64] = [
        0, 1, -1, 5, 12, -2, 42, 2_147_483_647, 2_147_483_648, -2_147_483_649, 9_007_199_254_740_992,
        9_007_199_254_740_993, 1_152_921_504_606_847_232, .max, .min,
    ]
    static let reals: [Double] = [
        0, -0.0, 0.1, 2.5, -0.5, 3, -1.5, 1e300, -1e300, 9_007_199_254_740_992, .infinity, -.infinity, 4.75,
    ]
    static let amounts: [DatabaseValue] = [
        .integer(0), .real(0.1), .real(2.5), .integer(-3), .text("12345678901234567890.5"), .real(1e20),
        .integer(9_007_199_254_740_993), .text("Infinity"), .text("-2.500"), .integer(12), .real(4.75),
    ]

    init(seed: UInt64) {
        random = SeededGenerator(seed: seed ^ 0x5DEE_CE66_D1CE_5EED)
    }

    /// The parents, and a few hundred rows to start from.
    mutating func initialRows() -> [LiveWriteStatement] {
        var statements = [LiveWriteStatement(sql: "INSERT INTO parents(id) SELECT generate_series(1, 20)")]
        parents = Set(1...20)
        for _ in 0..<8 { statements.append(insert(rows: 25)) }
        return statements
    }

    /// The statements of the next commit: one, or several in a transaction.
    mutating func nextCommit() -> [LiveWriteStatement] {
        commits += 1
        if let bulk, commits >= bulk.deleteAfter { return [bulkDelete()!] }
        let count = roll(3) != 0 ? Int.random(in: 2...10, using: &random) : 1
        return (0..<count).map { _ in statement() }
    }

    /// The delete of the last bulk insert's rows, if it is still to come: a check runs after it,
    /// so that its fresh fetches and the readers' last refetches read a table of hundreds of rows.
    mutating func bulkDelete() -> LiveWriteStatement? {
        guard let bulk else { return nil }
        self.bulk = nil
        return LiveWriteStatement(
            sql: "DELETE FROM msgs WHERE id BETWEEN $1 AND $2",
            arguments: [.integer(bulk.ids.lowerBound), .integer(bulk.ids.upperBound)])
    }

    private mutating func roll(_ sides: Int) -> Int {
        Int.random(in: 0..<sides, using: &random)
    }

    private mutating func statement() -> LiveWriteStatement {
        // Past the truncates, bulk statements and long texts when only small ones are wanted.
        switch smallOnly ? Int.random(in: 29..<1000, using: &random) : roll(1000) {
        case 0..<2: return LiveWriteStatement(sql: "TRUNCATE msgs")
        case 2..<4:
            parents = []
            return LiveWriteStatement(sql: "TRUNCATE parents CASCADE")
        case 4..<14 where bulk == nil: return bulkInsert()
        case 14..<24: return bulkUpdate()
        case 24..<29: return longText()
        case 29..<200: return insert(rows: 1)
        case 200..<300: return insert(rows: Int.random(in: 2...20, using: &random))
        case 300..<600: return update()
        case 600..<720: return delete()
        case 720..<830: return upsert()
        case 830..<880:
            // The rows of a parent go with it.
            let parent = Int64.random(in: 1...20, using: &random)
            parents.remove(parent)
            return LiveWriteStatement(sql: "DELETE FROM parents WHERE id = $1", arguments: [.integer(parent)])
        case 880..<940:
            let parent = Int64.random(in: 1...20, using: &random)
            parents.insert(parent)
            return LiveWriteStatement(
                sql: "INSERT INTO parents(id) VALUES ($1) ON CONFLICT DO NOTHING", arguments: [.integer(parent)])
        default: return update()
        }
    }

    // MARK: Values

    private mutating func parentID() -> DatabaseValue {
        guard !parents.isEmpty, roll(4) != 0 else { return .null }
        return .integer(parents.randomElement(using: &random)!)
    }

    private mutating func existingID() -> Int64 {
        Int64.random(in: 1...max(1, nextID - 1), using: &random)
    }

    /// A value for `column`, NULL now and then where the column allows it.
    private mutating func value(_ column: String) -> DatabaseValue {
        if column != "n", roll(6) == 0 { return .null }
        switch column {
        case "parent_id": return parentID()
        case "user_id": return .integer(Int64.random(in: 0...9, using: &random))
        case "n":
            return roll(2) == 0
                ? .integer(Int64.random(in: -10...10, using: &random))
                : .integer(Self.integers.randomElement(using: &random)!)
        case "body", "tag": return .text(Self.texts.randomElement(using: &random)!)
        case "label": return .text(String(Self.texts.randomElement(using: &random)!.prefix(20)))
        case "score": return .real(Self.reals.randomElement(using: &random)!)
        case "amount": return Self.amounts.randomElement(using: &random)!
        default: return .integer(Int64(roll(2)))
        }
    }

    private mutating func row(id: Int64) -> [DatabaseValue] {
        var values: [DatabaseValue] = [.integer(id)]
        for column in ["parent_id", "user_id", "n", "body", "tag", "label", "score", "amount", "flag"] {
            values.append(value(column))
        }
        return values
    }

    /// `$first, $first+1, …` for `count` arguments.
    private static func placeholders(from first: Int, count: Int) -> String {
        "(" + (first..<(first + count)).map { "$\($0)" }.joined(separator: ", ") + ")"
    }

    // MARK: Statements

    private mutating func insert(rows: Int) -> LiveWriteStatement {
        var arguments: [DatabaseValue] = []
        var tuples: [String] = []
        for _ in 0..<rows {
            tuples.append(Self.placeholders(from: arguments.count + 1, count: 10))
            arguments += row(id: nextID)
            nextID += 1
        }
        return LiveWriteStatement(
            sql: "INSERT INTO msgs(\(Self.columns)) VALUES \(tuples.joined(separator: ", "))", arguments: arguments)
    }

    private mutating func upsert() -> LiveWriteStatement {
        let id = existingID()
        let assignments = ["user_id", "n", "body", "tag", "label", "score", "amount", "flag"].shuffled(using: &random)
            .prefix(Int.random(in: 1...3, using: &random)).map { "\($0) = EXCLUDED.\($0)" }
        return LiveWriteStatement(
            sql:
                "INSERT INTO msgs(\(Self.columns)) VALUES \(Self.placeholders(from: 1, count: 10)) ON CONFLICT (id) DO UPDATE SET "
                + assignments.joined(separator: ", "),
            arguments: row(id: id))
    }

    private mutating func update() -> LiveWriteStatement {
        let columns = ["parent_id", "user_id", "n", "body", "tag", "label", "score", "amount", "flag"]
        var arguments: [DatabaseValue] = []
        var assignments: [String] = []
        for column in columns.shuffled(using: &random).prefix(Int.random(in: 1...3, using: &random)) {
            arguments.append(value(column))
            assignments.append("\(column) = $\(arguments.count)")
        }
        if roll(15) == 0 {
            // A new primary key: the row leaves one place of every order by id for another.
            arguments.append(.integer(nextID))
            assignments.append("id = $\(arguments.count)")
            nextID += 1
            arguments.append(.integer(existingID()))
            return LiveWriteStatement(
                sql: "UPDATE msgs SET \(assignments.joined(separator: ", ")) WHERE id = $\(arguments.count)",
                arguments: arguments)
        }
        let predicate: String
        switch roll(5) {
        case 0, 1:
            arguments.append(.integer(existingID()))
            predicate = "id = $\(arguments.count)"
        case 2:
            let low = existingID()
            arguments += [.integer(low), .integer(low + Int64.random(in: 0...10, using: &random))]
            predicate = "id BETWEEN $\(arguments.count - 1) AND $\(arguments.count)"
        case 3:
            if roll(3) == 0 {
                predicate = "user_id IS NULL"
            } else {
                arguments.append(.integer(Int64.random(in: 0...9, using: &random)))
                predicate = "user_id = $\(arguments.count)"
            }
        default:
            arguments.append(.text(Self.texts.randomElement(using: &random)!))
            predicate = "tag = $\(arguments.count)"
        }
        return LiveWriteStatement(
            sql: "UPDATE msgs SET \(assignments.joined(separator: ", ")) WHERE \(predicate)", arguments: arguments)
    }

    private mutating func delete() -> LiveWriteStatement {
        switch roll(4) {
        case 0, 1:
            return LiveWriteStatement(sql: "DELETE FROM msgs WHERE id = $1", arguments: [.integer(existingID())])
        case 2:
            let low = existingID()
            return LiveWriteStatement(
                sql: "DELETE FROM msgs WHERE id BETWEEN $1 AND $2",
                arguments: [.integer(low), .integer(low + Int64.random(in: 0...5, using: &random))])
        default:
            return LiveWriteStatement(
                sql: "DELETE FROM msgs WHERE user_id = $1 AND n < $2",
                arguments: [.integer(Int64.random(in: 0...9, using: &random)), .integer(Int64(roll(5)))])
        }
    }

    /// Thousands of rows in one statement, derived from their keys, deleted a few commits later.
    private mutating func bulkInsert() -> LiveWriteStatement {
        let count = Int64.random(in: 1_000...1_200, using: &random)
        let ids = nextID...(nextID + count - 1)
        nextID += count
        bulk = (ids, commits + Int.random(in: 1...2, using: &random))
        return LiveWriteStatement(
            sql: """
                INSERT INTO msgs(\(Self.columns))
                SELECT g, NULL, CASE WHEN g % 7 = 0 THEN NULL ELSE (g % 10)::int4 END, (g % 23) - 11,
                    (ARRAY['a', 'B', 'é', 'zebra', '10', ''])[(g % 6) + 1], (ARRAY['É', 'e', 'Zebra', 'ab'])[(g % 4) + 1],
                    CASE WHEN g % 5 = 0 THEN NULL ELSE 'l' || (g % 13) END, (g % 9) / 2.0 - 2, (g % 11) * 0.25,
                    CASE WHEN g % 3 = 0 THEN NULL ELSE g % 2 = 0 END
                FROM generate_series($1::int8, $2::int8) AS g
                """,
            arguments: [.integer(ids.lowerBound), .integer(ids.upperBound)])
    }

    /// An update of half the table or more, whose filtered columns move in and out of filters.
    private mutating func bulkUpdate() -> LiveWriteStatement {
        switch roll(3) {
        case 0:
            return LiveWriteStatement(
                sql:
                    "UPDATE msgs SET user_id = CASE WHEN user_id IS NULL THEN $1::int4 ELSE NULL END, n = n % 1000 + 1 WHERE id % 2 = $2",
                arguments: [.integer(Int64.random(in: 0...9, using: &random)), .integer(Int64(roll(2)))])
        case 1:
            return LiveWriteStatement(
                sql: "UPDATE msgs SET flag = NOT flag, score = score * -1 WHERE id % 3 <> $1",
                arguments: [.integer(Int64(roll(3)))])
        default:
            return LiveWriteStatement(
                sql: "UPDATE msgs SET tag = $1, amount = amount + 1 WHERE user_id IS NOT NULL",
                arguments: [.text(Self.texts.randomElement(using: &random)!)])
        }
    }

    /// Text just over 8,000 bytes, which PostgreSQL compresses or stores out of line (TOAST); not
    /// much longer, since every reader whose filter keeps its row fetches it again on each change.
    private mutating func longText() -> LiveWriteStatement {
        let unit = Self.texts.randomElement(using: &random)! + "~"
        let text = String(repeating: unit, count: 8_100 / unit.utf8.count + 1)
        if roll(2) == 0 {
            return LiveWriteStatement(
                sql: "UPDATE msgs SET body = $1 WHERE id = $2", arguments: [.text(text), .integer(existingID())])
        }
        var statement = insert(rows: 1)
        statement.arguments[4] = .text(text)
        return statement
    }
}
