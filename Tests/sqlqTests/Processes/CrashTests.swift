import Foundation
import SQLite
import Testing

/// `sqlq import` and `sqlq migrate` killed with SIGKILL at seeded random moments: the database
/// stays intact, and holds all of the work or none of it.
///
/// A few tries per case by default; `SQLQ_CRASH_TRIES=50` (see `Scripts/crash-test`) runs more.
@Suite("kill -9 during writes", .onProcessThreads)
struct CrashTests {
    static let tries = Int(ProcessInfo.processInfo.environment["SQLQ_CRASH_TRIES"] ?? "") ?? 3
    static let seed = UInt64(ProcessInfo.processInfo.environment["SQLQ_CRASH_SEED"] ?? "") ?? 20_261_123

    /// A reproducible generator (SplitMix64), so that a failing run can be repeated with its seed.
    struct SeededGenerator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static func integrity(_ path: String) throws -> String {
        // Read-write, so that a hot journal left by the killed process is rolled back.
        try Database(path: path).fetchOne(String.self, "PRAGMA integrity_check") ?? ""
    }

    /// Runs `arguments` once to completion, then `tries` times killed after a random part of
    /// that duration, each on a fresh database made by `setUp`; `check` looks at what is left.
    static func killRepeatedly(
        journal: String, salt: UInt64, arguments: (String) -> [String], setUp: (String) throws -> Void,
        check: (String) throws -> Void
    ) throws {
        let directory = try TemporaryDirectory()
        var generator = SeededGenerator(state: seed ^ salt)
        let calibration = directory.file("calibration.sqlite").path
        try setUp(calibration)
        let start = ContinuousClock.now
        let complete = try BackgroundCommand(arguments(calibration)).wait()
        let duration = ContinuousClock.now - start
        #expect(complete.status == 0, "\(complete.errors)")
        try check(calibration)
        let microseconds = Int(
            duration.components.seconds * 1_000_000 + duration.components.attoseconds / 1_000_000_000_000)
        for attempt in 0..<tries {
            let path = directory.file("killed-\(attempt).sqlite").path
            try setUp(path)
            let child = try BackgroundCommand(arguments(path))
            // The moment of the kill is the test's input, drawn from the seeded generator.
            usleep(UInt32(Int.random(in: 0...microseconds, using: &generator)))
            child.kill()
            try child.wait(limit: 30)
            #expect(try integrity(path) == "ok", "\(journal), try \(attempt)")
            try check(path)
        }
    }

    @Test("An import killed at any moment leaves all its rows or none", arguments: ["wal", "delete"])
    func importKilled(journal: String) throws {
        let files = try TemporaryDirectory()
        let rows = 20_000
        var csv = "id,name,amount\n"
        // Rows long enough to outgrow SQLite's page cache, so that the transaction spills pages
        // to the journal or WAL before it commits, and kills land during those writes too.
        let padding = String(repeating: "x", count: 150)
        for id in 1...rows { csv += "\(id),\"row \(id), imported \(padding)\",\(id * 3)\n" }
        let file = try files.write("rows.csv", csv)
        try Self.killRepeatedly(
            journal: journal, salt: journal == "wal" ? 1 : 2,
            arguments: { ["import", "t", file, "--db", $0] },
            setUp: { path in
                let db = try Database(path: path)
                _ = try db.fetchOne(String.self, "PRAGMA journal_mode = \(journal)")
                try db.executeScript(
                    "CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT NOT NULL, amount INTEGER); INSERT INTO t VALUES (0, 'before', 0);"
                )
            },
            check: { path in
                let db = try Database(path: path)
                let count = try db.fetchOne(Int.self, "SELECT count(*) FROM t") ?? -1
                #expect(count == 1 || count == rows + 1, "\(journal): \(count) rows")
                if count == rows + 1 {
                    #expect(try db.fetchOne(Int.self, "SELECT sum(amount) FROM t") == 3 * rows * (rows + 1) / 2)
                }
            })
    }

    @Test("A migration killed at any moment is either applied and recorded, or neither", arguments: ["wal", "delete"])
    func migrateKilled(journal: String) throws {
        let files = try TemporaryDirectory()
        let migrations = files.file("migrations")
        try FileManager.default.createDirectory(at: migrations, withIntermediateDirectories: true)
        _ = try files.write(
            "migrations/0001_a.sql",
            """
            CREATE TABLE a(id INTEGER PRIMARY KEY, n INTEGER);
            WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 30000) INSERT INTO a(n) SELECT x FROM c;
            """)
        _ = try files.write("migrations/0002_b.sql", "CREATE TABLE b AS SELECT id, n * 2 AS n FROM a;")
        _ = try files.write("migrations/0003_index.sql", "CREATE INDEX b_n ON b(n);")
        _ = try files.write("migrations/0004_negate.sql", "UPDATE a SET n = -n;")
        try Self.killRepeatedly(
            journal: journal, salt: journal == "wal" ? 3 : 4,
            arguments: { ["migrate", "--dir", migrations.path, "--db", $0] },
            setUp: { path in
                _ = try Database(path: path).fetchOne(String.self, "PRAGMA journal_mode = \(journal)")
            },
            check: { path in
                let db = try Database(path: path)
                let hasRecords =
                    try db.fetchOne(Int.self, "SELECT count(*) FROM sqlite_master WHERE name = 'schema_migrations'")
                    == 1
                let recorded =
                    hasRecords
                    ? try db.fetchAll(String.self, "SELECT identifier FROM schema_migrations ORDER BY 1") : []
                let all = ["0001_a", "0002_b", "0003_index", "0004_negate"]
                #expect(recorded == Array(all.prefix(recorded.count)), "\(journal): \(recorded)")
                func exists(_ name: String) throws -> Bool {
                    try db.fetchOne(Int.self, "SELECT count(*) FROM sqlite_master WHERE name = ?", [.text(name)]) == 1
                }
                #expect(try exists("a") == recorded.contains("0001_a"))
                #expect(try exists("b") == recorded.contains("0002_b"))
                #expect(try exists("b_n") == recorded.contains("0003_index"))
                if try exists("a") {
                    #expect(try db.fetchOne(Int.self, "SELECT count(*) FROM a") == 30000)
                    let negative = try db.fetchOne(Int.self, "SELECT count(*) FROM a WHERE n < 0") ?? -1
                    #expect(negative == (recorded.contains("0004_negate") ? 30000 : 0))
                }
                if try exists("b") { #expect(try db.fetchOne(Int.self, "SELECT count(*) FROM b") == 30000) }
            })
    }
}
