import BenchmarkSupport
import Foundation

// `sqlq serve` (a release build) against the targets of its issue, on the 1,000,000-row items
// database of the command-line benchmarks: 1,000 live clients of one view (commit-to-event
// latency, refetches per commit, memory per idle client), 1,000 clients of 1,000 views (events
// and server CPU per write against one client), the JSON API's throughput against Datasette's
// with wrk, and the first byte of a table page. Commits come from this process's own sqlite3
// connection: another process, as far as the server is concerned. Benchmarks/run-serve builds
// sqlq and runs this.

struct Options {
    var sqlq = ""
    var rows = 1_000_000
    var database: String?
    var clients = 1_000
    var commits = 50
    var writes = 200
    var pageRequests = 21
    var wrkSeconds = 10
    var wrkRounds = 2
    var datasette: String? = Arguments.findOnPath("datasette")
    var wrk: String? = Arguments.findOnPath("wrk")
    /// The parts to run: one-view, many-views, json, page.
    var parts: Set<String> = ["one-view", "many-views", "json", "page"]

    init(_ arguments: [String]) throws {
        var rest = Arguments(arguments)
        while let argument = rest.next() {
            switch argument {
            case "--sqlq": sqlq = try rest.value(argument)
            case "--rows": rows = try rest.number(argument)
            case "--database": database = try rest.value(argument)
            case "--clients": clients = try rest.number(argument)
            case "--commits": commits = try rest.number(argument)
            case "--writes": writes = try rest.number(argument)
            case "--page-requests": pageRequests = try rest.number(argument)
            case "--wrk-seconds": wrkSeconds = try rest.number(argument)
            case "--wrk-rounds": wrkRounds = try rest.number(argument)
            case "--datasette": datasette = try rest.value(argument)
            case "--wrk": wrk = try rest.value(argument)
            case "--only": parts = Set(try rest.value(argument).split(separator: ",").map(String.init))
            case "-h", "--help":
                print(
                    "usage: ServeBenchmarks --sqlq PATH [--rows N] [--database PATH] [--clients N] [--commits N] "
                        + "[--writes N] [--page-requests N] [--wrk-seconds N] [--wrk-rounds N] [--datasette PATH] "
                        + "[--wrk PATH] [--only one-view,many-views,json,page]")
                exit(0)
            default: throw BenchmarkError("unknown option \(argument); try --help")
            }
        }
        guard !sqlq.isEmpty else { throw BenchmarkError("give the sqlq executable with --sqlq PATH") }
    }
}

/// The view of the JSON comparison and of the one-view clients: Datasette's query of the issue,
/// with priority 4 for 3, since on this database (priority is i mod 6, done is i mod 3 = 0)
/// `priority = 3 and done = 0` matches no row, and `priority = 4` matches 166,667, all not done.
/// Many rows share a due date: `-id` breaks the ties as Datasette's answer does (the rowid
/// descending), where sqlq's keyset pages would break them by the rowid ascending.
let viewParameters = [("where", "priority = 4 and done = 0"), ("sort", "-due,-id"), ("size", "10")]
/// The same rows (every priority-4 item is not done), whose count SQLite takes from the index on
/// (priority, due) alone: the view above costs a count that reads 166,667 rows of the table.
let indexCountParameters = [("where", "priority = 4"), ("sort", "-due,-id"), ("size", "10")]

func startServer(_ options: Options, database: String, maximumClients: Int) throws -> ServerProcess {
    try ServerProcess(
        [options.sqlq, "serve", "--db", database, "--port", "0", "--max-clients", String(maximumClients)],
        name: "sqlq serve"
    ) { line in
        guard line.hasPrefix("Serving http://"), let colon = line.lastIndex(of: ":") else { return nil }
        return Int(line[line.index(after: colon)...].dropLast(line.hasSuffix("/") ? 1 : 0))
    }
}

/// The fetch counts of the server's live readers, from `/-/stats.json`.
func readerFetches(_ server: ServerProcess) throws -> (readers: Int, fetches: Int) {
    let stats = try HTTP.json(port: server.port, "/-/stats.json") as? [String: Any]
    guard let readers = stats?["readers"] as? [[String: Any]] else {
        throw BenchmarkError("/-/stats.json has no readers")
    }
    return (readers.count, readers.reduce(0) { $0 + (($1["fetches"] as? Int) ?? 0) })
}

do {
    let options = try Options(Array(CommandLine.arguments.dropFirst()))
    let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../..").standardized
    let database =
        options.database
        ?? FileManager.default.temporaryDirectory.appendingPathComponent("sqlq-serve-benchmark-\(options.rows).sqlite")
        .path
    try BenchmarkDatabase.prepare(
        path: database, rows: options.rows,
        schemaFile: packageRoot.appendingPathComponent("Migrations/0001_create_lists_and_items.sql").path)
    print(
        "sqlq serve, \(options.rows) items, \(ProcessInfo.processInfo.activeProcessorCount) cores, "
            + "load average before: \(loadAverage())")
    print("")
    if options.parts.contains("one-view") { try OneView.run(options, database: database) }
    if options.parts.contains("many-views") { try ManyViews.run(options, database: database) }
    if options.parts.contains("json") { try JSONThroughput.run(options, database: database) }
    if options.parts.contains("page") { try FirstByte.run(options, database: database) }
    print("load average after: \(loadAverage())")
} catch {
    FileHandle.standardError.write(Data("ServeBenchmarks: \(error)\n".utf8))
    exit(1)
}

func loadAverage() -> String {
    ((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "?").split(separator: " ").prefix(3)
        .joined(separator: " ")
}
