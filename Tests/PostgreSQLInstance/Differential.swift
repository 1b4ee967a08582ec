import Foundation
import LiveValueTesting
import Observation
import PostgreSQL

// The `differential` mode: many live readers of random filters on the table `msgs`, each checked
// on demand against a fresh fetch of its request.
//
// Usage: PostgreSQLInstance differential SOCKET_DIRECTORY PORT DATABASE SEED FIRST COUNT
//   prints     loaded COUNT        once the readers FIRST..<FIRST+COUNT have loaded
//   reads      check               waits until every reader equals a fresh fetch of its request,
//                                  within a time limit; prints "ok INDEX" or "mismatch INDEX
//                                  FILTER live=… fresh=…" for each, then "done"; and on standard
//                                  error how long its fresh fetches and the wait took
//   exits 0 at the end of its input.

/// One reader's request: every column of the rows of `msgs` that its filter keeps.
struct DifferentialRequest: FetchKeyRequest {
    let request: QueryInterfaceRequest<Row>

    func fetch(_ db: any SQLConnection) throws -> [Row] {
        try request.fetchAll(db)
    }
}

enum Differential {
    /// The longest a `check` waits for every reader, counted from the end of its fresh fetches.
    static let checkLimit: Duration = .seconds(20)

    /// Runs the mode with the arguments that follow `differential`; returns the exit status.
    static func main(_ arguments: [String]) async -> Int32 {
        guard arguments.count == 6 || arguments.count == 7, let port = Int(arguments[1]),
            let seed = UInt64(arguments[3]),
            let first = Int(arguments[4]), let count = Int(arguments[5]), first >= 0, count >= 0,
            first <= Int.max - count
        else {
            FileHandle.standardError.write(
                Data(
                    "usage: PostgreSQLInstance differential SOCKET_DIRECTORY PORT DATABASE SEED FIRST COUNT [ROLE]\n"
                        .utf8))
            return 2
        }
        do {
            let db = try await PostgreSQLDatabase(
                .init(
                    address: .unixSocket(directory: arguments[0], port: port),
                    user: arguments.count == 7 ? arguments[6] : "postgres", database: arguments[2])
            )
            try await run(db: db, seed: seed, indices: first..<(first + count))
            await db.close()
            return 0
        } catch {
            FileHandle.standardError.write(Data("differential: \(error)\n".utf8))
            return 1
        }
    }

    static func run(db: PostgreSQLDatabase, seed: UInt64, indices: Range<Int>) async throws {
        var seen = Set<DifferentialRequest>()
        var requests: [(index: Int, request: DifferentialRequest)] = []
        for index in indices {
            var random = SplitMix(seed: seed ^ (UInt64(index) &* 0xD1B5_4A32_D192_ED03))
            // Distinct requests: equal ones would share one live value.
            var request = DifferentialRequest(request: FilterGenerator.request(using: &random))
            while seen.contains(request) {
                request = DifferentialRequest(request: FilterGenerator.request(using: &random))
            }
            seen.insert(request)
            requests.append((index, request))
        }
        let readers = requests.map { SharedReader<[Row]>(.fetch($0.request, database: db)) }
        // A request that fails keeps its error in `loadError`, which a check compares.
        await withTaskGroup(of: Void.self) { group in
            for reader in readers { group.addTask { try? await reader.load() } }
        }
        say("loaded \(readers.count)")

        let lines = AsyncStream<String> { continuation in
            Thread.detachNewThread {
                while let line = readLine() { continuation.yield(line) }
                continuation.finish()
            }
        }
        for await line in lines {
            guard line == "check" else {
                FileHandle.standardError.write(Data("unknown command: \(line)\n".utf8))
                exit(2)
            }
            let results = await check(readers: readers, requests: requests, db: db)
            for result in results { say(result) }
            say("done")
        }
    }

    /// One line for each reader, in order: whether it came to equal a fresh fetch in time.
    static func check(
        readers: [SharedReader<[Row]>], requests: [(index: Int, request: DifferentialRequest)], db: PostgreSQLDatabase
    ) async -> [String] {
        let start = ContinuousClock.now
        // Nothing writes during a check: one fresh fetch each is the value every reader must reach.
        // One after another: at once, they take longer in all.
        var fresh: [Result<[Row], any Error>] = []
        for (_, request) in requests {
            do { fresh.append(.success(try await db.fetch(request))) } catch { fresh.append(.failure(error)) }
        }
        let expected = fresh
        let fetched = ContinuousClock.now
        let deadline = fetched + checkLimit
        defer {
            FileHandle.standardError.write(
                Data(
                    "differential check: fresh fetches \(fetched - start), readers caught up \(ContinuousClock.now - fetched)\n"
                        .utf8))
        }
        return await withTaskGroup(of: (Int, String).self) { group in
            for (position, reader) in readers.enumerated() {
                let (index, request) = requests[position]
                group.addTask {
                    let reached: Bool
                    switch expected[position] {
                    case .success(let rows):
                        reached = await holds(before: deadline) { reader.wrappedValue == rows }
                    case .failure:
                        // The live value reports an error too, and keeps its last good value.
                        reached = await holds(before: deadline) { reader.loadError != nil }
                    }
                    if reached { return (position, "ok \(index)") }
                    return (
                        position, mismatch(index: index, request: request, reader: reader, fresh: expected[position])
                    )
                }
            }
            var lines = [String](repeating: "", count: readers.count)
            for await (position, line) in group { lines[position] = line }
            return lines
        }
    }

    static func mismatch(
        index: Int, request: DifferentialRequest, reader: SharedReader<[Row]>, fresh: Result<[Row], any Error>
    ) -> String {
        let live = reader.wrappedValue
        var line = "mismatch \(index) \(request.request.description) live=\(ids(live))"
        switch fresh {
        case .success(let rows):
            line += " fresh=\(ids(rows))"
            if live == rows { line += " (equal only after the time limit)" }
            if let first = zip(live, rows).first(where: { $0 != $1 }) {
                line +=
                    " first differing row: live \(clipped(first.0.description)) fresh \(clipped(first.1.description))"
            }
        case .failure(let error):
            line += " fresh=error \(clipped("\(error)"))"
        }
        if let error = reader.loadError { line += " loadError=\(clipped("\(error)"))" }
        return line
    }

    static func ids(_ rows: [Row]) -> String {
        "[" + rows.map { $0.values.first?.description ?? "?" }.joined(separator: ",") + "]"
    }

    static func clipped(_ text: String) -> String {
        text.count <= 300 ? text : String(text.prefix(300)) + "…"
    }

    /// Waits through Observation (never a fixed sleep) until `condition`, which reads a reader,
    /// holds; false when `deadline` passes first.
    static func holds(
        before deadline: ContinuousClock.Instant, _ condition: @escaping @Sendable () -> Bool
    ) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                while !Task.isCancelled {
                    let once = OneShot()
                    let satisfied = await withTaskCancellationHandler {
                        await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                            once.arm(continuation)
                            let done = withObservationTracking {
                                condition()
                            } onChange: {
                                once.resume(false)
                            }
                            // A change between the tracked read and now reaches no onChange.
                            if done || condition() { once.resume(true) }
                        }
                    } onCancel: {
                        once.resume(false)
                    }
                    if satisfied { return true }
                }
                return false
            }
            group.addTask {
                try? await Task.sleep(until: deadline)
                return false
            }
            let result = await group.next() ?? false
            group.cancelAll()
            return result
        }
    }

    static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}

/// Random requests on `msgs`: filter trees of comparisons, membership, ranges and NULL tests over
/// its columns, with bound values of the column's kind and of other kinds that PostgreSQL
/// compares with it.
enum FilterGenerator {
    enum Kind: CaseIterable {
        case int4, int8, text, float8, numeric, bool
    }

    static let columns: [(name: String, kind: Kind)] = [
        ("id", .int8), ("parent_id", .int8), ("user_id", .int4), ("n", .int8), ("body", .text), ("tag", .text),
        ("label", .text), ("score", .float8), ("amount", .numeric), ("flag", .bool),
    ]

    /// The columns whose order does not depend on a collation, for comparing two columns.
    static let numericColumns = ["id", "parent_id", "user_id", "n", "score", "amount"]

    static let texts: [String] = [
        "", "a", "A", "b", "B", "ab", "a b", "é", "É", "e", "z", "Z", "zebra", "Zebra", "10", "9", "_", "%", "Ünïcode",
        "ünïcode", "m", "x",
    ]

    /// Integers at the edges of 32 bits, of doubles' exact integers (2⁵³) and of 64 bits.
    static let bigIntegers: [Int64] = [
        2_147_483_647, 2_147_483_648, -2_147_483_649, 9_007_199_254_740_992, 9_007_199_254_740_993,
        1_152_921_504_606_847_232, .max, .min,
    ]

    static let reals: [Double] = [
        2.5, -0.5, 3.0, 0.1, -1.5, 1e300, -1e300, 9_007_199_254_740_992, 9.3e18, .infinity, -.infinity, 4.75,
    ]

    static func request(using random: inout SplitMix) -> QueryInterfaceRequest<Row> {
        var request = Table("msgs").filter(filter(depth: 0, using: &random))
        guard Int.random(in: 0..<4, using: &random) == 0 else { return request.sort(Column("id")) }
        let column = Column(columns.randomElement(using: &random)!.name)
        let orderings: [any SQLOrderingTerm] = [
            column.asc, column.desc, column.asc.nullsLast, column.desc.nullsFirst, column,
        ]
        let ordering = orderings.randomElement(using: &random)!
        // The primary key last, so that ties come back in one order.
        request = request.sort(ordering, Column("id"))
        return request.limit(
            Int.random(in: 0...15, using: &random),
            offset: Bool.random(using: &random) ? Int.random(in: 0...10, using: &random) : nil)
    }

    static func filter(depth: Int, using random: inout SplitMix) -> SQLExpression {
        if depth < 3, Int.random(in: 0..<5, using: &random) < 2 {
            let lhs = filter(depth: depth + 1, using: &random)
            switch Int.random(in: 0..<5, using: &random) {
            case 0, 1: return lhs && filter(depth: depth + 1, using: &random)
            case 2, 3: return lhs || filter(depth: depth + 1, using: &random)
            default: return !lhs
            }
        }
        let (name, kind) = columns.randomElement(using: &random)!
        let column = Column(name)
        switch Int.random(in: 0..<16, using: &random) {
        case 0: return column == value(for: kind, using: &random)
        case 1: return column != value(for: kind, using: &random)
        case 2: return column < value(for: kind, using: &random)
        case 3: return column <= value(for: kind, using: &random)
        case 4: return column > value(for: kind, using: &random)
        case 5: return column >= value(for: kind, using: &random)
        case 6, 7:
            var list = (0..<Int.random(in: 0...4, using: &random)).map { _ in value(for: kind, using: &random) }
            if Bool.random(using: &random) { list.append(.null) }
            return column.in(list.shuffled(using: &random))
        case 8, 9:
            var bounds = [value(for: kind, using: &random), value(for: kind, using: &random)]
            if kind != .bool, Bool.random(using: &random) { bounds.sort(by: isOrdered) }
            return column.between(bounds[0], bounds[1])
        case 10: return column == nil
        case 11: return column != nil
        case 12: return Column("flag").sqlExpression
        case 13:
            // Two columns of one row: numbers of different types compare as PostgreSQL converts them.
            let other = Column(numericColumns.randomElement(using: &random)!)
            let lhs = Column(numericColumns.randomElement(using: &random)!)
            let comparisons: [SQLExpression] = [lhs == other, lhs < other, lhs >= other, lhs != other]
            return comparisons.randomElement(using: &random)!
        default: return column == value(for: kind, matching: true, using: &random)
        }
    }

    /// A value to compare with a column of `kind`: of its own kind mostly, else of another kind
    /// that PostgreSQL converts (an integer's text against a text column, a real or a 64-bit
    /// integer against any number), and sometimes NULL.
    static func value(for kind: Kind, matching: Bool = false, using random: inout SplitMix) -> DatabaseValue {
        if !matching, Int.random(in: 0..<20, using: &random) == 0 { return .null }
        let other = !matching && Int.random(in: 0..<3, using: &random) == 0
        switch kind {
        case .int4, .int8, .numeric, .float8:
            switch Int.random(in: 0..<(other ? 3 : 1), using: &random) {
            case 0: return .integer(Int64.random(in: -2...12, using: &random))
            case 1: return .integer(bigIntegers.randomElement(using: &random)!)
            default: return .real(reals.randomElement(using: &random)!)
            }
        case .text:
            if other { return .integer(Int64.random(in: 0...12, using: &random)) }
            return .text(texts.randomElement(using: &random)!)
        case .bool:
            if other { return .integer(Int64.random(in: 0...1, using: &random)) }
            return Bool.random(using: &random).databaseValue
        }
    }

    /// An order for BETWEEN's bounds, so that more ranges are not empty; any order is valid SQL.
    static func isOrdered(_ lhs: DatabaseValue, _ rhs: DatabaseValue) -> Bool {
        switch (lhs, rhs) {
        case (.integer(let a), .integer(let b)): return a < b
        case (.integer(let a), .real(let b)): return Double(a) < b
        case (.real(let a), .integer(let b)): return a < Double(b)
        case (.real(let a), .real(let b)): return a < b
        case (.text(let a), .text(let b)): return Array(a.utf8).lexicographicallyPrecedes(Array(b.utf8))
        default: return false
        }
    }
}

/// A small deterministic generator (SplitMix64), so that a seed reproduces the readers.
struct SplitMix: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
