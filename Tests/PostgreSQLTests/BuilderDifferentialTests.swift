import Foundation
import PostgreSQL
import SQLite
import Testing

/// The same random query-builder requests on SQLite and on PostgreSQL return the same rows.
///
/// Seeded and reproducible: `BUILDER_DIFFERENTIAL_SEED` picks the seed and
/// `BUILDER_DIFFERENTIAL_ITERATIONS` the number of requests per seed.
@Suite(.postgreSQLInstalled)
struct BuilderDifferentialTests {
    static let seeds: [UInt64] =
        ProcessInfo.processInfo.environment["BUILDER_DIFFERENTIAL_SEED"].flatMap(UInt64.init).map { [$0] } ?? [1, 2, 3]
    static let iterations =
        ProcessInfo.processInfo.environment["BUILDER_DIFFERENTIAL_ITERATIONS"].flatMap(Int.init) ?? 150

    @Test(arguments: seeds)
    func randomRequestsReturnTheSameRows(seed: UInt64) async throws {
        var random = SeededGenerator(seed: seed)
        let rows = (1...80).map { id in Self.randomRow(id: id, using: &random) }
        let sqlite = try DatabaseQueue()
        try await sqlite.write { [rows] db in
            try db.execute(
                "CREATE TABLE items(id INTEGER PRIMARY KEY, title TEXT, priority INTEGER, score REAL, done INTEGER NOT NULL)"
            )
            for row in rows { try db.execute("INSERT INTO items VALUES (?, ?, ?, ?, ?)", row) }
        }
        try await TestServer.withDatabase { pg in
            try await pg.execute(
                "CREATE TABLE items(id INTEGER PRIMARY KEY, title TEXT, priority INTEGER, score DOUBLE PRECISION, done BOOLEAN NOT NULL)"
            )
            for row in rows { try await pg.execute("INSERT INTO items VALUES ($1, $2, $3, $4, $5)", row) }
            for iteration in 0..<Self.iterations {
                let request = Self.randomRequest(using: &random)
                let context = "seed \(seed), request \(iteration): \(try request.rendered(.postgreSQL).sql)"
                let expected = try await sqlite.read { db in try request.fetchAll(db) }
                let actual = try await request.fetchAll(pg)
                #expect(actual == expected, "\(context)")
                let expectedCount = try await sqlite.read { db in try request.fetchCount(db) }
                #expect(try await request.fetchCount(pg) == expectedCount, "\(context)")
                if actual != expected { return }
            }
        }
    }

    static let titles: [String?] = [nil, "milk", "Milk", "bread", "50% off", "a_b", "zebra", "", "Ünïcode", "MILKY"]

    static func randomRow(id: Int, using random: inout SeededGenerator) -> [SQLiteValue] {
        let title = titles.randomElement(using: &random)!.map(SQLiteValue.text) ?? .null
        let priority: SQLiteValue =
            Int.random(in: 0...6, using: &random) == 0 ? .null : .integer(Int64.random(in: 0...5, using: &random))
        let score: SQLiteValue =
            Int.random(in: 0...6, using: &random) == 0
            ? .null : .real(Double(Int.random(in: -8...8, using: &random)) / 2)
        return [.integer(Int64(id)), title, priority, score, .integer(Bool.random(using: &random) ? 1 : 0)]
    }

    static func randomRequest(using random: inout SeededGenerator) -> QueryInterfaceRequest<Row> {
        var request = Table("items").filter(randomFilter(depth: 0, using: &random))
        var orderings: [any SQLOrderingTerm] = []
        for _ in 0..<Int.random(in: 0...2, using: &random) {
            let column = Column(["title", "priority", "score", "done"].randomElement(using: &random)!)
            orderings.append(
                [column.asc, column.desc, column.asc.nullsLast, column.desc.nullsFirst, column]
                    .randomElement(using: &random)!)
        }
        // A total order: ties would come back in whatever order each database chose.
        orderings.append(Column("id"))
        request = request.sort(orderings)
        if Bool.random(using: &random) {
            request = request.limit(
                Int.random(in: 0...30, using: &random),
                offset: Bool.random(using: &random) ? Int.random(in: 0...20, using: &random) : nil)
        }
        return request
    }

    static func randomFilter(depth: Int, using random: inout SeededGenerator) -> SQLExpression {
        if depth < 3, Int.random(in: 0...2, using: &random) == 0 {
            let lhs = randomFilter(depth: depth + 1, using: &random)
            let rhs = randomFilter(depth: depth + 1, using: &random)
            switch Int.random(in: 0...2, using: &random) {
            case 0: return lhs && rhs
            case 1: return lhs || rhs
            default: return !lhs
            }
        }
        let priority = Column("priority")
        let score = Column("score")
        let title = Column("title")
        let int = Int.random(in: -1...6, using: &random)
        let text = titles.compactMap { $0 }.randomElement(using: &random)!
        switch Int.random(in: 0...15, using: &random) {
        case 0: return priority == int
        case 1: return priority != int
        case 2: return priority < int
        case 3: return priority >= int
        case 4: return score > Double(int) / 2
        case 5: return score <= int
        case 6: return title == text
        case 7: return title < text
        case 8: return title.like(["%i%", "M%", "b_ead", "%", "50%", "%K%"].randomElement(using: &random)!)
        case 9: return title.contains(["%", "_", "il", "IL", "ü"].randomElement(using: &random)!)
        case 10: return title.hasPrefix(["m", "M", "50%", ""].randomElement(using: &random)!)
        case 11:
            return priority.in(
                (0..<Int.random(in: 0...3, using: &random)).map { _ in Int.random(in: 0...5, using: &random) })
        case 12: return score.between(-1.5, Double(int))
        case 13: return Bool.random(using: &random) ? priority == nil : title != nil
        case 14: return Column("done") == Bool.random(using: &random)
        default: return Column("done").sqlExpression
        }
    }
}

/// A small deterministic generator (SplitMix64), so that a seed reproduces a run.
struct SeededGenerator: RandomNumberGenerator {
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
