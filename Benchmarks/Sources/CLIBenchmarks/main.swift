import BenchmarkSupport
import Foundation

// Whole-process wall time of `sqlq query` against the sqlite3 shell running the same SQL, on a
// 1,000,000-row items database, with runs of the two alternating so that the machine's noise
// falls on both; then every row exported in each format and a CSV file imported (against the
// shell and sqlite-utils); then the latency of `sqlq watch` from another connection's commit to
// the redraw. Benchmarks/run-cli builds sqlq in release and runs this.

struct Options {
    var rows = 1_000_000
    var runs = 25
    /// Runs of each bulk export and import, which take seconds each.
    var bulkRuns = 5
    var commits = 30
    var database: String?
    /// `label=path` of each sqlq build to time.
    var builds: [(label: String, path: String)] = []
    var sqlite3 = "/usr/bin/sqlite3"
    /// A program that parses sqlq's query options with argument-parser and does nothing else.
    var floor: String?
    /// sqlite-utils, found on PATH unless given.
    var sqliteUtils: String? = Arguments.findOnPath("sqlite-utils")
    /// The parts to run: queries, bulk, watch.
    var parts: Set<String> = ["queries", "bulk", "watch"]

    init(_ arguments: [String]) throws {
        var rest = Arguments(arguments)
        while let argument = rest.next() {
            switch argument {
            case "--rows": rows = try rest.number(argument)
            case "--runs": runs = try rest.number(argument)
            case "--bulk-runs": bulkRuns = try rest.number(argument)
            case "--sqlite-utils": sqliteUtils = try rest.value(argument)
            case "--only": parts = Set(try rest.value(argument).split(separator: ",").map(String.init))
            case "--commits": commits = try rest.number(argument)
            case "--database": database = try rest.value(argument)
            case "--sqlite3": sqlite3 = try rest.value(argument)
            case "--floor": floor = try rest.value(argument)
            case "--sqlq":
                let spec = try rest.value(argument)
                guard let equals = spec.firstIndex(of: "=") else { throw BenchmarkError("--sqlq takes label=path") }
                builds.append((String(spec[..<equals]), String(spec[spec.index(after: equals)...])))
            case "-h", "--help":
                print(
                    "usage: CLIBenchmarks --sqlq LABEL=PATH... [--rows N] [--runs N] [--bulk-runs N] [--commits N] [--database PATH] "
                        + "[--sqlite3 PATH] [--sqlite-utils PATH] [--floor PATH] [--only queries,bulk,watch]"
                )
                exit(0)
            default: throw BenchmarkError("unknown option \(argument); try --help")
            }
        }
        guard !builds.isEmpty else { throw BenchmarkError("name at least one sqlq build with --sqlq label=path") }
    }
}

/// One query: sqlq's options, and the SQL sqlq runs for them with the values it binds, which
/// the sqlite3 shell binds with `.param set` so that both run the same statement with the same
/// plan. (A value written into the SQL can change SQLite's plan: see `literal`.)
struct QueryCase {
    let name: String
    let sqlqArguments: [String]
    let sql: String
    /// The bound values, as the shell's `.param set` reads them (SQL literals).
    let parameters: [String]
    /// The same query with its values written into the SQL, as one would type it in the shell.
    let literal: String
    /// Whether `literal` is another statement, whose ties may come in another order: its rows
    /// are then checked as a set.
    var literalIsRewritten = false

    func shell(_ sqlite3: String, _ database: String) -> [String] {
        var command = [sqlite3, "-csv", "-header"]
        for (index, value) in parameters.enumerated() { command += ["-cmd", ".param set ?\(index + 1) \"\(value)\""] }
        return command + [database, sql]
    }
}

let queries = [
    // The index on (priority, due) finds the rows and gives their order: the query takes
    // microseconds, so this measures start-up.
    QueryCase(
        name: "selective: priority = 5 and due >= 2026-06-01, sort due, limit 10",
        sqlqArguments: ["--where", "priority = 5 and due >= 2026-06-01", "--sort", "due", "--limit", "10"],
        sql: #"SELECT * FROM "items" WHERE "priority" = ? AND "due" >= ? ORDER BY "due" LIMIT ?"#,
        parameters: ["5", "'2026-06-01'", "10"],
        literal: "SELECT * FROM items WHERE priority = 5 AND due >= '2026-06-01' ORDER BY due LIMIT 10"),
    // The README's query. With its values bound SQLite walks the index on due backwards and stops
    // at the tenth match; with them written into the SQL, it reads half the table through the
    // index on priority and sorts it.
    QueryCase(
        name: "README: priority >= 3 and not done, sort -due, limit 10",
        sqlqArguments: ["--where", "priority >= 3 and not done", "--sort", "-due", "--limit", "10"],
        sql: #"SELECT * FROM "items" WHERE "priority" >= ? AND NOT "done" ORDER BY "due" DESC LIMIT ?"#,
        parameters: ["3", "10"],
        literal: "SELECT * FROM items WHERE priority >= 3 AND NOT done ORDER BY due DESC LIMIT 10"),
]

/// sqlq's SQL for `--search TEXT --limit 10` on items, searched through its index items_fts.
func searchSQL() -> String {
    #"SELECT * FROM "items" WHERE "items"."id" IN (SELECT "items_fts"."rowid" FROM "items_fts" WHERE "items_fts" MATCH ?) "#
        + #"ORDER BY (WITH "items_fts matches"("key", "value") AS MATERIALIZED (SELECT "items_fts"."rowid", bm25("items_fts") "#
        + #"FROM "items_fts" WHERE "items_fts" MATCH ?) SELECT "value" FROM "items_fts matches" WHERE "key" = "items"."id") "#
        + "LIMIT ?"
}

/// Full-text searches of items' title and notes (an index sqlq's search-index creates), each
/// word a prefix as sqlq reads them. The shell's literal is the join one would type.
let searches = [
    // "1234*" matches item 1234, 12340–12349 and 123400–123499: 111 rows.
    QueryCase(
        name: "search: 1234, limit 10 (111 matches)",
        sqlqArguments: ["--search", "1234", "--limit", "10"], sql: searchSQL(),
        parameters: [#"'\"1234\"*'"#, #"'\"1234\"*'"#, "10"],
        literal: "SELECT items.* FROM items JOIN items_fts ON items_fts.rowid = items.id "
            + "WHERE items_fts MATCH '1234*' ORDER BY rank LIMIT 10",
        literalIsRewritten: true),
    // One item in ten: every match is ranked to keep the best ten.
    QueryCase(
        name: "search: garden, limit 10 (100,000 matches)",
        sqlqArguments: ["--search", "garden", "--limit", "10"], sql: searchSQL(),
        parameters: [#"'\"garden\"*'"#, #"'\"garden\"*'"#, "10"],
        literal: "SELECT items.* FROM items JOIN items_fts ON items_fts.rowid = items.id "
            + "WHERE items_fts MATCH 'garden*' ORDER BY rank LIMIT 10",
        literalIsRewritten: true),
]

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

func percentile(_ values: [Double], _ fraction: Double) -> Double {
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * fraction).rounded()))]
}

/// The fields of each CSV record, unquoted.
func csvRecords(_ bytes: [UInt8]) -> [[String]] {
    var records: [[String]] = []
    var record: [String] = []
    var field: [UInt8] = []
    var quoted = false
    var index = 0
    while index < bytes.count {
        let byte = bytes[index]
        index += 1
        if quoted {
            if byte == UInt8(ascii: "\""), index < bytes.count, bytes[index] == UInt8(ascii: "\"") {
                field.append(byte)
                index += 1
            } else if byte == UInt8(ascii: "\"") {
                quoted = false
            } else {
                field.append(byte)
            }
            continue
        }
        switch byte {
        case UInt8(ascii: "\""): quoted = true
        case UInt8(ascii: ","):
            record.append(String(decoding: field, as: UTF8.self))
            field = []
        case UInt8(ascii: "\r"): break
        case UInt8(ascii: "\n"):
            record.append(String(decoding: field, as: UTF8.self))
            records.append(record)
            (record, field) = ([], [])
        default: field.append(byte)
        }
    }
    return records
}

func format(_ value: Double) -> String {
    String(format: "%.2f", value)
}

do {
    let options = try Options(Array(CommandLine.arguments.dropFirst()))
    let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../..").standardized
    let database =
        options.database
        ?? FileManager.default.temporaryDirectory.appendingPathComponent("sqlq-benchmark-\(options.rows).sqlite").path
    try BenchmarkDatabase.prepare(
        path: database, rows: options.rows,
        schemaFile: packageRoot.appendingPathComponent("Migrations/0001_create_lists_and_items.sql").path)

    if options.parts.contains("queries") { try runQueries(options, database: database) }
    if options.parts.contains("bulk") {
        let sqlq = options.builds[0]
        try BulkBenchmark.runExports(
            sqlq: sqlq.path, sqlite3: options.sqlite3, database: database, runs: options.bulkRuns)
        try BulkBenchmark.runImports(
            sqlq: sqlq.path, sqlite3: options.sqlite3, sqliteUtils: options.sqliteUtils, database: database,
            schemaFile: packageRoot.appendingPathComponent("Migrations/0001_create_lists_and_items.sql").path,
            runs: options.bulkRuns)
        print("")
        print("(sqlq is the \(sqlq.label) build.)")
    }
    if options.parts.contains("watch") { try runWatch(options, database: database) }
} catch {
    FileHandle.standardError.write(Data("CLIBenchmarks: \(error)\n".utf8))
    exit(1)
}

func runQueries(_ options: Options, database: String) throws {
    print(
        "sqlq query against the sqlite3 shell: \(options.rows) items, \(options.runs) alternating runs each, "
            + "whole-process wall time; both print CSV with a header")
    print("")
    print("| query | program | median ms | × sqlite3 |")
    print("|---|---|---:|---:|")
    try ensureSearchIndex(sqlq: options.builds[0].path, database: database)
    for query in queries + searches {
        let shell = query.shell(options.sqlite3, database)
        let commands =
            [("sqlite3 shell, values bound", shell)]
            + options.builds.map { build in
                (
                    "sqlq (\(build.label))",
                    [build.path, "query", "items"] + query.sqlqArguments + ["--format", "csv", "--db", database]
                )
            }
            + (options.floor.map { floor in
                [
                    (
                        "argument-parser alone (static)",
                        [floor, "query", "items"] + query.sqlqArguments + ["--format", "csv", "--db", database]
                    )
                ]
            } ?? []) + [
                ("sqlite3 shell, values in the SQL", [options.sqlite3, "-csv", "-header", database, query.literal])
            ]
        // sqlq must run this very SQL, and print the same rows as the shell, or the comparison
        // means nothing. (The shell quotes more fields than it must and ends lines with LF,
        // sqlq with CRLF as RFC 4180 says.)
        let expected = csvRecords(try ChildProcess.output(shell))
        for build in options.builds {
            let explained = try ChildProcess.output(
                [build.path, "query", "items"] + query.sqlqArguments + ["--explain", "--db", database])
            guard String(decoding: explained, as: UTF8.self).hasPrefix(query.sql + "\n") else {
                throw BenchmarkError(
                    "sqlq (\(build.label)) runs other SQL than \(query.sql): \(String(decoding: explained, as: UTF8.self))"
                )
            }
        }
        for (label, command) in commands.dropFirst().prefix(options.builds.count)
        where csvRecords(try ChildProcess.output(command)) != expected {
            throw BenchmarkError("\(label) prints other rows than the sqlite3 shell for \(query.name)")
        }
        if query.literalIsRewritten {
            let rewritten = csvRecords(try ChildProcess.output(commands.last!.1))
            guard
                rewritten.sorted(by: { $0.lexicographicallyPrecedes($1) })
                    == expected.sorted(by: { $0.lexicographicallyPrecedes($1) })
            else { throw BenchmarkError("the shell's rewritten query prints other rows for \(query.name)") }
        }
        var times = [[Double]](repeating: [], count: commands.count)
        for _ in 0..<options.runs {
            for (index, command) in commands.enumerated() {
                times[index].append(try ChildProcess.time(command.1))
            }
        }
        let baseline = median(times[0])
        for (index, command) in commands.enumerated() {
            let value = median(times[index])
            print("| \(query.name) | \(command.0) | \(format(value)) | \(format(value / baseline)) |")
        }
    }

}

/// Creates the index of items' title and notes with sqlq, once: it is kept in the database.
func ensureSearchIndex(sqlq: String, database: String) throws {
    let exists = try RawConnection(path: database).integer(
        "SELECT count(*) FROM sqlite_master WHERE name = 'items_fts'")
    guard exists == 0 else { return }
    FileHandle.standardError.write(Data("indexing items' title and notes for the searches…\n".utf8))
    _ = try ChildProcess.output([sqlq, "search-index", "items", "title", "notes", "--db", database])
}

func runWatch(_ options: Options, database: String) throws {
    print("")
    print(
        "sqlq watch: from a commit by another connection to the redraw on sqlq's standard output (a pipe), "
            + "\(options.commits) commits")
    print("")
    print("| program | p50 ms | p90 ms | max ms |")
    print("|---|---:|---:|---:|")
    for build in options.builds {
        let latencies = try WatchLatency.measure(sqlq: build.path, database: database, commits: options.commits)
        print(
            "| sqlq (\(build.label)) | \(format(percentile(latencies, 0.5))) | \(format(percentile(latencies, 0.9))) | \(format(latencies.max() ?? 0)) |"
        )
    }
}
