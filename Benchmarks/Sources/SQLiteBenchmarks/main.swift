import Foundation

// Runs every workload for every contender, several rounds, in one process, and prints medians
// and each median's ratio to raw sqlite3. `--csv` prints `workload,contender,median_ms,ratio_to_raw`.
// `--search` runs the full-text searches instead (SearchBenchmark.swift).

struct Options {
    var rows = 100_000
    var rounds = 5
    var csv = false
    /// `--search`: the full-text searches on a table of 1,000,000 notes unless `--rows` says otherwise.
    var search = false
    /// `--no-live`: the searches without the live search across processes.
    var skipLive = false
    /// `--query N`: only the Nth search (from 1), to count one search's instructions.
    var query: Int?
    /// Contender names to run (raw sqlite3 always runs: ratios need it).
    var contenders: Set<String> = []
    /// `--workload NAME`: only these workloads (`fetch_all`, `point_lookup`…), to count one
    /// workload's instructions.
    var workloads: Set<String> = []

    init(_ arguments: [String]) throws {
        var rest = arguments[...]
        var rowsGiven = false
        while let argument = rest.popFirst() {
            switch argument {
            case "--csv": csv = true
            case "--search": search = true
            case "--no-live": skipLive = true
            case "--query": query = try Self.number(rest.popFirst(), for: argument)
            case "--rows":
                rows = try Self.number(rest.popFirst(), for: argument)
                rowsGiven = true
            case "--rounds": rounds = try Self.number(rest.popFirst(), for: argument)
            case "--contender":
                guard let name = rest.popFirst() else { throw BenchmarkError("--contender takes a name") }
                contenders.insert(name)
            case "--workload":
                guard let name = rest.popFirst(), Workload(rawValue: name) != nil else {
                    throw BenchmarkError("--workload takes one of \(Workload.allCases.map(\.rawValue))")
                }
                workloads.insert(name)
            case "-h", "--help":
                print(
                    "usage: SQLiteBenchmarks [--search [--no-live] [--query N]] [--rows N] [--rounds N] [--csv] [--contender NAME]... [--workload NAME]... | --observation | --row-observation | --cache"
                )
                exit(0)
            default: throw BenchmarkError("unknown option \(argument); try --help")
            }
        }
        if search && !rowsGiven { rows = 1_000_000 }
    }

    static func number(_ text: String?, for option: String) throws -> Int {
        guard let text, let value = Int(text), value > 0 else {
            throw BenchmarkError("\(option) takes a positive number")
        }
        return value
    }
}

func milliseconds(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

do {
    let arguments = CommandLine.arguments
    if let flag = arguments.firstIndex(of: "--observation-writer"), flag + 1 < arguments.count {
        let insert = flag + 2 < arguments.count ? arguments[flag + 2] : defaultObservationInsert
        try runObservationWriter(path: arguments[flag + 1], insert: insert)
        exit(0)
    }
    if arguments.contains("--row-observation") {
        try runRowObservationBenchmarks()
        exit(0)
    }
    if arguments.contains("--observation") {
        try runObservationBenchmarks()
        exit(0)
    }
    if arguments.contains("--cache") {
        try runCacheBenchmarks()
        exit(0)
    }
    let options = try Options(Array(CommandLine.arguments.dropFirst()))
    if options.search {
        try runSearchBenchmarks(options)
        exit(0)
    }
    var contenders: [any Contender] = [
        RawContender(),
        PackageContender(.fetchableRow), PackageContender(.decodable),
        GRDBContender(.record), GRDBContender(.codable),
        QueryBuilderContender(), GRDBQueryInterfaceContender(),
        RecordContender(.handWritten), RecordContender(.encodable),
        GRDBRecordContender(.handWritten), GRDBRecordContender(.encodable),
    ]
    if !options.contenders.isEmpty {
        contenders = contenders.filter { $0.name == "raw sqlite3" || options.contenders.contains($0.name) }
    }
    var samples: [String: [String: [Double]]] = [:]  // workload → contender → times
    var checksums: [String: Int] = [:]
    for round in 1...options.rounds {
        if !options.csv { FileHandle.standardError.write(Data("round \(round)/\(options.rounds)\n".utf8)) }
        for index in contenders.indices {
            let name = contenders[index].name
            try contenders[index].setUp(rows: options.rows) { insert in
                samples[Workload.insert.rawValue, default: [:]][name, default: []].append(try milliseconds(insert))
            }
            for workload in Workload.allCases
            where workload != .insert && (options.workloads.isEmpty || options.workloads.contains(workload.rawValue)) {
                var checksum: Int?
                let time = try milliseconds { checksum = try contenders[index].run(workload, rows: options.rows) }
                guard let checksum else { continue }
                // Every contender must compute the same answer, or the comparison means nothing.
                if let expected = checksums[workload.rawValue], expected != checksum {
                    throw BenchmarkError("\(name) computed \(checksum) for \(workload.rawValue), expected \(expected)")
                }
                checksums[workload.rawValue] = checksum
                samples[workload.rawValue, default: [:]][name, default: []].append(time)
            }
        }
    }

    let order = contenders.map(\.name)
    if options.csv {
        print("workload,contender,median_ms,ratio_to_raw")
    } else {
        print("rows: \(options.rows), rounds: \(options.rounds), medians in ms, ratio = median / raw sqlite3 median")
        print("")
        print("| workload | contender | median ms | × raw |")
        print("|---|---|---:|---:|")
    }
    for workload in Workload.allCases {
        guard let byContender = samples[workload.rawValue], let raw = byContender["raw sqlite3"].map(median) else {
            continue
        }
        for name in order {
            guard let times = byContender[name] else { continue }
            let value = median(times)
            let ratio = value / raw
            if options.csv {
                print("\(workload.rawValue),\(name),\(String(format: "%.2f", value)),\(String(format: "%.3f", ratio))")
            } else {
                print(
                    "| \(workload.rawValue) | \(name) | \(String(format: "%.2f", value)) | \(String(format: "%.2f", ratio)) |"
                )
            }
        }
    }
} catch {
    FileHandle.standardError.write(Data("error: \(error)\n".utf8))
    exit(1)
}
