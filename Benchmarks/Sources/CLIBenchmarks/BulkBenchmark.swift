import BenchSQLite
import BenchmarkSupport
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Every row of the items table exported in each format, and a CSV file of them imported into an
/// empty items table: sqlq against the sqlite3 shell (and for import, sqlite-utils), whole
/// process, wall time and peak memory, runs alternating.
///
/// Before timing, each program's output is reduced to its cells, in order, and compared: the
/// formats differ in quoting, escapes and borders, but every program must write the same values.
enum BulkBenchmark {
    /// An export: sqlq's format and the shell's options that write the same thing.
    struct Export: Sendable {
        let format: String
        let shell: [String]
        let cells: @Sendable ([UInt8]) -> Cells
    }

    static let exports = [
        Export(format: "csv", shell: ["-csv", "-header"], cells: Cells.csv),
        Export(
            format: "tsv", shell: ["-tabs", "-header"], cells: { Cells.delimited($0, separator: UInt8(ascii: "\t")) }),
        Export(format: "json", shell: ["-json"], cells: Cells.json),
        Export(format: "ndjson", shell: ["-json"], cells: Cells.json),
        Export(format: "markdown", shell: ["-markdown"], cells: Cells.bordered),
        Export(format: "table", shell: ["-table"], cells: Cells.bordered),
    ]

    static let sql = "SELECT * FROM items"

    struct Timing {
        var times: [Double] = []
        var memory: [Double] = []
    }

    static func printRow(_ work: String, _ label: String, _ timing: Timing, baseline: Double) {
        let time = median(timing.times)
        print(
            "| \(work) | \(label) | \(format(time)) | \(format(time / baseline)) | \(format(median(timing.memory) / 1e6)) |"
        )
    }

    static func runExports(sqlq: String, sqlite3: String, database: String, runs: Int) throws {
        print("")
        print(
            "Bulk export: every row of items (\(try BenchmarkDatabase.count(database)) rows) to a pipe, \(runs) alternating runs each, "
                + "whole-process wall time and peak resident memory; the shell with the options of the same format")
        print("")
        print("| format | program | median ms | × sqlite3 | peak MB |")
        print("|---|---|---:|---:|---:|")
        for export in exports {
            let shell = [sqlite3] + export.shell + [database, sql]
            let ours = [sqlq, "query", "items", "--format", export.format, "--db", database]
            let expected = export.cells(try ChildProcess.output(shell))
            let got = export.cells(try ChildProcess.output(ours))
            guard expected == got else {
                throw BenchmarkError(
                    "sqlq --format \(export.format) writes other values than sqlite3 \(export.shell.joined(separator: " ")): "
                        + "\(got.count) cells against \(expected.count)")
            }
            var timings = [Timing(), Timing()]
            for _ in 0..<runs {
                for (index, command) in [shell, ours].enumerated() {
                    let (time, memory) = try measureDiscardingOutput(command)
                    timings[index].times.append(time)
                    timings[index].memory.append(Double(memory))
                }
            }
            let baseline = median(timings[0].times)
            printRow(export.format, "sqlite3 " + export.shell.joined(separator: " "), timings[0], baseline: baseline)
            printRow(export.format, "sqlq --format \(export.format)", timings[1], baseline: baseline)
        }
    }

    /// Runs `command` with its output read and dropped by this process through a pipe, as a
    /// reader would: writing to /dev/null would let a program skip work.
    static func measureDiscardingOutput(_ command: [String]) throws -> (Double, Int) {
        var descriptors: [Int32] = [0, 0]
        guard pipe(&descriptors) == 0 else { throw BenchmarkError("pipe failed") }
        let readEnd = descriptors[0]
        let drained = DispatchSemaphore(value: 0)
        Thread {
            var reader = PipeReader(descriptor: readEnd)
            while (try? reader.read()) ?? nil != nil {}
            close(readEnd)
            drained.signal()
        }.start()
        // The reader sees the end once the child has exited and this copy of the write end is closed.
        defer { drained.wait() }
        defer { close(descriptors[1]) }
        return try ChildProcess.measure(command, output: descriptors[1])
    }

    static func runImports(
        sqlq: String, sqlite3: String, sqliteUtils: String?, database: String, schemaFile: String, runs: Int
    ) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sqlq-benchmark-import")
        try? FileManager.default.removeItem(at: directory)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let csv = directory.appendingPathComponent("items.csv").path
        let csvBytes = try ChildProcess.output([sqlite3, "-csv", "-header", database, sql])
        guard FileManager.default.createFile(atPath: csv, contents: Data(csvBytes)) else {
            throw BenchmarkError("cannot write \(csv)")
        }
        // An empty items table, its lists filled so that every list_id has its row.
        let empty = directory.appendingPathComponent("empty.sqlite").path
        guard let schema = FileManager.default.contents(atPath: schemaFile) else {
            throw BenchmarkError("cannot read \(schemaFile)")
        }
        try RawConnection(path: empty).execute(
            String(decoding: schema, as: UTF8.self)
                + "ATTACH '\(database)' AS source; INSERT INTO lists SELECT * FROM source.lists; DETACH source;")
        // The same table without its indexes, where the time is the programs' own rather than
        // SQLite's updating of three indexes in random order.
        let bare = directory.appendingPathComponent("bare.sqlite").path
        try FileManager.default.copyItem(atPath: empty, toPath: bare)
        try RawConnection(path: bare).execute(
            "DROP INDEX items_by_list; DROP INDEX items_by_priority; DROP INDEX items_by_due;")
        let expected = try contents(database)

        var programs: [(String, (String) -> [String])] = [
            ("sqlite3 .import --csv", { [sqlite3, $0, ".import --csv --skip 1 '\(csv)' items"] }),
            ("sqlq import", { [sqlq, "import", "items", csv, "--db", $0] }),
        ]
        if let sqliteUtils {
            programs.append(("sqlite-utils insert --csv", { [sqliteUtils, "insert", $0, "items", csv, "--csv"] }))
        }
        let target = directory.appendingPathComponent("target.sqlite").path
        func fresh(_ template: String) throws {
            for suffix in ["", "-journal", "-wal", "-shm"] {
                try? FileManager.default.removeItem(atPath: target + suffix)
            }
            try FileManager.default.copyItem(atPath: template, toPath: target)
        }
        for (label, command) in programs {
            try fresh(empty)
            try ChildProcess(command(target)).wait()
            guard try contents(target) == expected else {
                throw BenchmarkError("\(label) imports other rows than the table they were exported from")
            }
        }
        let works = [("import CSV", empty), ("import CSV, table without indexes", bare)]
        var timings = [[Timing]](repeating: [Timing](repeating: Timing(), count: programs.count), count: works.count)
        for _ in 0..<runs {
            for (work, template) in works.enumerated() {
                for (index, program) in programs.enumerated() {
                    try fresh(template.1)
                    let (time, memory) = try ChildProcess.measure(program.1(target))
                    timings[work][index].times.append(time)
                    timings[work][index].memory.append(Double(memory))
                }
            }
        }
        print("")
        print(
            "Bulk import: a \(csvBytes.count / 1_000_000) MB CSV file of \(try BenchmarkDatabase.count(database)) items "
                + "into an empty items table (with its indexes), \(runs) alternating runs each, "
                + "whole-process wall time and peak resident memory; each program's rows checked against the source "
                + "(NULL and the empty string alike: the shell and sqlite-utils read an empty field as the empty string)"
        )
        print("")
        print("| work | program | median ms | × sqlite3 | peak MB |")
        print("|---|---|---:|---:|---:|")
        for (work, template) in works.enumerated() {
            let baseline = median(timings[work][0].times)
            for (index, program) in programs.enumerated() {
                printRow(template.0, program.0, timings[work][index], baseline: baseline)
            }
        }
        if sqliteUtils == nil {
            print("")
            print(
                "sqlite-utils was not found on PATH: `pip install sqlite-utils` (or --sqlite-utils PATH) to time it too."
            )
        }
    }

    /// A digest of every row of items, by type and value; NULL counts as the empty string,
    /// which the shell's and sqlite-utils' CSV import make of an empty field.
    static func contents(_ path: String) throws -> Cells {
        let connection = try RawConnection(path: path)
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(connection.handle, "SELECT * FROM items ORDER BY id", -1, &statement, nil) == SQLITE_OK
        else { throw BenchmarkError("cannot read items of \(path)") }
        defer { sqlite3_finalize(statement) }
        var cells = Cells()
        let columns = sqlite3_column_count(statement)
        while sqlite3_step(statement) == SQLITE_ROW {
            for column in 0..<columns {
                let type = sqlite3_column_type(statement, column)
                cells.add(byte: UInt8(type == SQLITE_NULL ? SQLITE_TEXT : type))
                if let text = sqlite3_column_text(statement, column) {
                    cells.add(UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(statement, column))))
                }
                cells.endCell()
            }
        }
        return cells
    }
}

/// The cells of an output, in order, as a count and a 64-bit FNV-1a hash of their bytes.
struct Cells: Equatable {
    private(set) var count = 0
    private var hash: UInt64 = 0xcbf2_9ce4_8422_2325

    mutating func add(byte: UInt8) {
        hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
    }

    mutating func add(_ bytes: UnsafeBufferPointer<UInt8>) {
        for byte in bytes { add(byte: byte) }
    }

    mutating func add(_ bytes: ArraySlice<UInt8>) {
        for byte in bytes { add(byte: byte) }
    }

    mutating func endCell() {
        add(byte: 0xFF)
        count += 1
    }

    /// CSV as RFC 4180 reads it, quotes removed; CRLF and LF alike.
    static func csv(_ bytes: [UInt8]) -> Cells {
        var cells = Cells()
        var quoted = false
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            if quoted {
                if byte == UInt8(ascii: "\""), index < bytes.count, bytes[index] == UInt8(ascii: "\"") {
                    cells.add(byte: byte)
                    index += 1
                } else if byte == UInt8(ascii: "\"") {
                    quoted = false
                } else {
                    cells.add(byte: byte)
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): quoted = true
            case UInt8(ascii: ","), UInt8(ascii: "\n"): cells.endCell()
            case UInt8(ascii: "\r"): break
            default: cells.add(byte: byte)
            }
        }
        return cells
    }

    /// Fields separated by `separator`, one record per line.
    static func delimited(_ bytes: [UInt8], separator: UInt8) -> Cells {
        var cells = Cells()
        for byte in bytes {
            if byte == separator || byte == UInt8(ascii: "\n") { cells.endCell() } else { cells.add(byte: byte) }
        }
        return cells
    }

    /// The keys and values of JSON objects, strings unescaped; the array around them and the
    /// layout between them ignored. NULL and the empty string differ.
    static func json(_ bytes: [UInt8]) -> Cells {
        var cells = Cells()
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
                    if bytes[index] == UInt8(ascii: "\\") {
                        index += 1
                        switch bytes[index] {
                        case UInt8(ascii: "n"): cells.add(byte: 0x0A)
                        case UInt8(ascii: "r"): cells.add(byte: 0x0D)
                        case UInt8(ascii: "t"): cells.add(byte: 0x09)
                        case UInt8(ascii: "u"):
                            cells.add(bytes[(index + 1)...(index + 4)])
                            index += 4
                        default: cells.add(byte: bytes[index])
                        }
                    } else {
                        cells.add(byte: bytes[index])
                    }
                    index += 1
                }
                cells.add(byte: UInt8(ascii: "\""))
                cells.endCell()
                index += 1
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "n"):
                let start = index
                while index < bytes.count, !",}]\n :".utf8.contains(bytes[index]) { index += 1 }
                cells.add(bytes[start..<index])
                cells.endCell()
            default:
                index += 1
            }
        }
        return cells
    }

    /// The cells of a table drawn with `|` between columns (psql's, the shell's `-table` and
    /// `-markdown`), spaces around them trimmed, rules and the row count skipped. NULL, which
    /// sqlq shows as `NULL` and the shell as nothing, counts as empty.
    static func bordered(_ bytes: [UInt8]) -> Cells {
        var cells = Cells()
        for line in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true) {
            guard line.contains(UInt8(ascii: "|")) || !line.starts(with: "(".utf8) else { continue }
            // Rules: only -, +, :, | and spaces.
            if line.allSatisfy({ "-+:| =".utf8.contains($0) }) { continue }
            var fields = line.split(separator: UInt8(ascii: "|"), omittingEmptySubsequences: false)
            if line.first == UInt8(ascii: "|") { fields.removeFirst() }
            if line.last == UInt8(ascii: "|") { fields.removeLast() }
            for field in fields {
                var trimmed = field[...]
                while trimmed.first == UInt8(ascii: " ") { trimmed.removeFirst() }
                while trimmed.last == UInt8(ascii: " ") { trimmed.removeLast() }
                if !trimmed.elementsEqual("NULL".utf8) { cells.add(trimmed) }
                cells.endCell()
            }
        }
        return cells
    }
}
