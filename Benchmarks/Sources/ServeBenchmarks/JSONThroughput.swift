import BenchmarkSupport
import Foundation

/// The JSON API of `sqlq serve` against Datasette's, on the same file and the same filtered,
/// sorted, limited query, with wrk: requests per second and p99 latency, runs alternating.
enum JSONThroughput {
    /// Datasette's URL of the issue (with priority 4: see `viewParameters`), with and without
    /// `_nocount=1`.
    static func datasettePath(database: String, count: Bool, done: Bool = true) -> String {
        let name = URL(fileURLWithPath: database).deletingPathExtension().lastPathComponent
        return "/\(name)/items.json?priority=4" + (done ? "&done=0" : "") + "&_sort_desc=due&_size=10"
            + (count ? "" : "&_nocount=1") + "&_nofacet=1&_nosuggest=1"
    }

    static func run(_ options: Options, database: String) throws {
        guard let wrk = options.wrk, let datasette = options.datasette else {
            print(
                "JSON API: skipped, \(options.wrk == nil ? "wrk" : "datasette") is missing (apt-get install wrk; pip install datasette)"
            )
            print("")
            return
        }
        let sqlq = try startServer(options, database: database, maximumClients: 100)
        defer { sqlq.stop() }
        let uvicornPort = { (line: String) -> Int? in
            guard let range = line.range(of: "running on http://127.0.0.1:") else { return nil }
            return Int(line[range.upperBound...].prefix { $0.isNumber })
        }
        // Datasette's default, which checks the file for changes, like sqlq; and immutable (-i),
        // which counts nothing it has counted before and checks nothing.
        let mutable = try ServerProcess(
            [datasette, "serve", database, "--port", "0"], name: "datasette", readErrors: true, port: uvicornPort)
        defer { mutable.stop() }
        let immutable = try ServerProcess(
            [datasette, "serve", "-i", database, "--port", "0"], name: "datasette -i", readErrors: true,
            port: uvicornPort)
        defer { immutable.stop() }
        let version =
            (try? runOutput([datasette, "--version"]))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"

        let sqlqPath = "/items.json?" + queryString(viewParameters)
        let contenders: [(String, ServerProcess, String)] = [
            ("sqlq serve: rows + count (A)", sqlq, sqlqPath),
            ("Datasette: rows (_nocount)", mutable, datasettePath(database: database, count: false)),
            ("Datasette: rows + count", mutable, datasettePath(database: database, count: true)),
            ("Datasette -i: rows (_nocount)", immutable, datasettePath(database: database, count: false)),
            (
                "sqlq serve: rows + count, where=priority = 4 (B)", sqlq,
                "/items.json?" + queryString(indexCountParameters)
            ),
            (
                "Datasette: rows + count, priority=4 only", mutable,
                datasettePath(database: database, count: true, done: false)
            ),
            ("sqlq serve: rows, count=false (A)", sqlq, sqlqPath + "&count=false"),
            (
                "sqlq serve: rows, count=false (B)", sqlq,
                "/items.json?" + queryString(indexCountParameters) + "&count=false"
            ),
            (
                "Datasette: rows (_nocount), priority=4 only", mutable,
                datasettePath(database: database, count: false, done: false)
            ),
        ]
        let sqlqIDs = try ids(sqlq: HTTP.json(port: sqlq.port, sqlqPath))
        for (name, server, path) in contenders.dropFirst() {
            let json = try HTTP.json(port: server.port, path)
            let theirs = try server === sqlq ? ids(sqlq: json) : ids(datasette: json)
            guard theirs == sqlqIDs else {
                throw BenchmarkError("sqlq's rows \(sqlqIDs) are not those of \(name): \(theirs)")
            }
        }
        print(
            "JSON API: sqlq \(sqlqPath) against \(version) (\(URL(fileURLWithPath: datasette).lastPathComponent) serve), "
                + "both return the rows with ids \(sqlqIDs.map(String.init).joined(separator: ", ")); "
                + "wrk -t2 -c16 -d\(options.wrkSeconds)s --latency, "
                + "\(options.wrkRounds) alternating rounds, on the same cores as the servers")
        print("")
        var results = Array(repeating: [WrkResult](), count: contenders.count)
        for _ in 1...options.wrkRounds {
            for (index, contender) in contenders.enumerated() {
                results[index].append(
                    try runWrk(
                        wrk, url: "http://127.0.0.1:\(contender.1.port)\(contender.2)", seconds: options.wrkSeconds))
                // The requests wrk left in flight still hold the server: one more request, waited
                // for, lets it finish them before the next contender runs.
                _ = try HTTP.get(port: contender.1.port, contender.2)
            }
        }
        print(
            "| server: answer | requests/s (each round) | median requests/s | p99 ms (each round) "
                + "| timeouts (each round) | sqlq (A) ÷ it | it ÷ Datasette (_nocount) |")
        print("|---|---:|---:|---:|---:|---:|---:|")
        let sqlqMedian = median(results[0].map(\.requests))
        // The issue's reference: Datasette's rows without a count.
        let datasetteMedian = median(results[1].map(\.requests))
        for (index, contender) in contenders.enumerated() {
            let rate = median(results[index].map(\.requests))
            print(
                "| \(contender.0) | \(results[index].map { format($0.requests, digits: 0) }.joined(separator: ", ")) "
                    + "| \(format(rate, digits: 0)) | \(results[index].map { $0.p99.isNaN ? "–" : format($0.p99) }.joined(separator: ", ")) "
                    + "| \(results[index].map { String($0.timeouts) }.joined(separator: ", ")) "
                    + "| \(index == 0 || rate == 0 ? "–" : format(sqlqMedian / rate, digits: 2) + "×") "
                    + "| \(datasetteMedian == 0 ? "–" : format(rate / datasetteMedian, digits: 2) + "×") |")
        }
        print("")
        print(
            "(wrk gives up on a request after 2 s and counts it as a timeout, not in requests/s nor in the "
                + "latencies; – for p99: no request of the round completed within 2 s.)")
        print("")
    }

    private static func ids(sqlq json: Any) throws -> [Int] {
        guard let rows = (json as? [String: Any])?["rows"] as? [[String: Any]] else {
            throw BenchmarkError("sqlq's JSON has no rows")
        }
        return rows.compactMap { $0["id"] as? Int }
    }

    private static func ids(datasette json: Any) throws -> [Int] {
        guard let object = json as? [String: Any], let columns = object["columns"] as? [String],
            let id = columns.firstIndex(of: "id"), let rows = object["rows"] as? [[Any]]
        else { throw BenchmarkError("Datasette's JSON has no rows and columns") }
        return rows.compactMap { $0[id] as? Int }
    }

    /// What one wrk run reports.
    struct WrkResult {
        var requests: Double
        /// The 99th-percentile latency in milliseconds, of the requests that completed; NaN when
        /// none did.
        var p99: Double
        /// The requests wrk gave up on after its 2 s timeout.
        var timeouts: Int
    }

    private static func runWrk(_ wrk: String, url: String, seconds: Int) throws -> WrkResult {
        let output = try runOutput([wrk, "-t2", "-c16", "-d\(seconds)s", "--latency", url])
        guard !output.contains("Non-2xx") else { throw BenchmarkError("wrk got errors from \(url):\n\(output)") }
        let lines = output.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        // "Socket errors: connect 0, read 0, write 0, timeout 52", only when there were some.
        let timeouts =
            lines.first { $0.hasPrefix("Socket errors:") }.flatMap { line in
                line.range(of: "timeout ").flatMap { Int(line[$0.upperBound...].prefix { $0.isNumber }) }
            } ?? 0
        if lines.contains(where: { $0.hasPrefix("0 requests in") }) {
            return WrkResult(requests: 0, p99: .nan, timeouts: timeouts)
        }
        guard
            let rate = lines.first(where: { $0.hasPrefix("Requests/sec:") }).flatMap({
                Double($0.dropFirst(13).trimmingCharacters(in: .whitespaces))
            }),
            let p99 = lines.first(where: { $0.hasPrefix("99%") }).flatMap({
                milliseconds($0.dropFirst(3).trimmingCharacters(in: .whitespaces))
            })
        else { throw BenchmarkError("cannot read wrk's output:\n\(output)") }
        return WrkResult(requests: rate, p99: p99 > 0 ? p99 : .nan, timeouts: timeouts)
    }

    /// A wrk duration (`812.00us`, `12.34ms`, `1.02s`, `2.00m`) in milliseconds.
    private static func milliseconds(_ text: String) -> Double? {
        for (unit, scale) in [("us", 0.001), ("ms", 1.0), ("s", 1000.0), ("m", 60_000.0)] where text.hasSuffix(unit) {
            return Double(text.dropLast(unit.count)).map { $0 * scale }
        }
        return nil
    }
}

/// Runs a program to its end and returns its standard output; throws unless it exits with 0.
func runOutput(_ arguments: [String]) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: arguments[0])
    process.arguments = Array(arguments.dropFirst())
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        throw BenchmarkError("\(arguments.joined(separator: " ")) ended with status \(process.terminationStatus)")
    }
    return String(decoding: data, as: UTF8.self)
}
