import Foundation
import PostgreSQL

// Commit throughput of writers with and without the package's change triggers: PostgreSQL takes
// a global lock at the commit of every transaction that sent a notification, so commits that
// notify are serialized. Measured with pgbench (its path in $PGBENCH, which run-postgres sets):
// single-row inserts into a table of inboxes, each a transaction of its own, by 8 concurrent
// connections and by 1, the variants alternating within each round.

struct BenchmarkFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// One pgbench run: transactions per second.
func pgbenchTPS(_ server: Server, clients: Int, seconds: Int, script: URL) throws -> Double {
    guard let pgbench = ProcessInfo.processInfo.environment["PGBENCH"] else {
        throw BenchmarkFailure("set PGBENCH to pgbench's path (Benchmarks/run-postgres does)")
    }
    // Spawned with an empty signal mask: pgbench ends a timed run on SIGALRM, which the threads
    // of a Swift process block, and a child started by `Process` inherits that mask.
    let output = FileManager.default.temporaryDirectory.appendingPathComponent("pgbench-\(getpid()).out")
    defer { try? FileManager.default.removeItem(at: output) }
    let arguments = [
        pgbench, "-h", server.host, "-p", String(server.port), "-U", "postgres", "-n", "-c", String(clients),
        "-j", String(min(clients, 2)), "-T", String(seconds), "-f", script.path, "postgres",
    ]
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, output.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var none = sigset_t()
    sigemptyset(&none)
    posix_spawnattr_setsigmask(&attributes, &none)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
    var argv = arguments.map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, pgbench, &actions, &attributes, &argv, environ)
    guard spawned == 0 else { throw BenchmarkFailure("cannot run \(pgbench): error \(spawned)") }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
    let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
    // "tps = 6229.123456 (without initial connection time)"
    guard status == 0,
        let line = text.split(separator: "\n").first(where: { $0.hasPrefix("tps = ") }),
        let tps = Double(line.dropFirst(6).prefix { $0 != " " })
    else { throw BenchmarkFailure("pgbench failed (wait status \(status)): \(text)") }
    return tps
}

func measureCommitThroughput(_ db: PostgreSQLDatabase, _ server: Server, rounds: Int, seconds: Int) async throws {
    try await db.execute("DROP TABLE IF EXISTS commit_bench")
    try await db.execute("CREATE TABLE commit_bench(id BIGSERIAL PRIMARY KEY, user_id INTEGER NOT NULL, body TEXT)")
    let script = FileManager.default.temporaryDirectory.appendingPathComponent("commit-bench-\(getpid()).sql")
    try """
    \\set user random(1, 1000)
    INSERT INTO commit_bench(user_id, body) VALUES (:user, 'hello');

    """.write(to: script, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(at: script) }

    func setTriggers(_ installed: Bool) async throws {
        if installed {
            try await db.installChangeNotifications(on: ["commit_bench"])
        } else {
            for event in ["insert", "update", "delete", "truncate"] {
                try await db.execute(
                    "DROP TRIGGER IF EXISTS \(PostgreSQLDatabase.changeChannel)_\(event) ON commit_bench")
            }
        }
    }
    let variants: [(clients: Int, triggers: Bool)] = [(8, false), (8, true), (1, false), (1, true)]
    var tps = [[Double]](repeating: [], count: variants.count)
    for round in 0..<rounds {
        FileHandle.standardError.write(Data("commits: round \(round + 1)/\(rounds)\n".utf8))
        for offset in variants.indices {
            let index = (offset + round) % variants.count
            try await setTriggers(variants[index].triggers)
            tps[index].append(
                try pgbenchTPS(server, clients: variants[index].clients, seconds: seconds, script: script))
        }
    }
    try await setTriggers(false)

    print("Commit throughput: single-row inserts, each its own transaction, \(seconds) s per run, median of \(rounds)")
    print("")
    print("| writers | change triggers | transactions/s | × without |")
    print("|---:|---|---:|---:|")
    for (index, variant) in variants.enumerated() {
        let without = variants.firstIndex { $0.clients == variant.clients && !$0.triggers }!
        print(
            "| \(variant.clients) | \(variant.triggers ? "installed" : "none") | \(String(format: "%.0f", median(tps[index]))) | \(String(format: "%.2f", median(tps[index]) / median(tps[without]))) |"
        )
    }
    print("")
}
