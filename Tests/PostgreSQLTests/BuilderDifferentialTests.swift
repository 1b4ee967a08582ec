import Foundation
import PostgreSQL
import PostgreSQLTestServer
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
        try await compare(seed: seed, databaseOptions: "")
    }

    /// Under a locale whose `ILIKE` and `lower()` fold `É` to `é`, `LIKE` still folds ASCII
    /// letters only, as SQLite's does.
    @Test(arguments: seeds)
    func randomRequestsReturnTheSameRowsUnderAnICULocale(seed: UInt64) async throws {
        try await compare(seed: seed, databaseOptions: Self.icu)
    }

    static let icu = "LOCALE_PROVIDER icu ICU_LOCALE 'en-US' LOCALE 'C.UTF-8' TEMPLATE template0"

    /// The requests that failed or differed on PostgreSQL, each with SQLite's rows.
    @Test(arguments: ["", icu])
    func numbersOfOtherTypesAndNonASCIILettersGiveSQLitesRows(databaseOptions: String) async throws {
        let priority = Column("priority")
        let title = Column("title")
        let big = Column("big")
        try await compare(
            seed: 1, databaseOptions: databaseOptions,
            requests: [
                priority > 2.5, priority < 3_000_000_000, priority.like("1%"), priority >= 2.0, priority < -3e9,
                title.like("%é%"), title.contains("É"), title.like("ÉTÉ"), title.hasPrefix("é"),
                big == 9_007_199_254_740_993, big < 9_007_199_254_740_994.0, big > 9.3e18, big.like("-%"),
            ].map { Table("items").filter($0).sort(Column("id")) })
    }

    /// Runs `requests`, or random ones from `seed`, on both databases and compares their rows.
    func compare(
        seed: UInt64, databaseOptions: String, requests fixed: [QueryInterfaceRequest<Row>]? = nil
    ) async throws {
        var random = SeededGenerator(seed: seed)
        let rows = (1...80).map { id in Self.randomRow(id: id, using: &random) }
        let sqlite = try DatabaseQueue()
        try await sqlite.write { [rows] db in
            try db.execute(
                "CREATE TABLE items(id INTEGER PRIMARY KEY, title TEXT, priority INTEGER, score REAL, done INTEGER NOT NULL, big INTEGER)"
            )
            for row in rows { try db.execute("INSERT INTO items VALUES (?, ?, ?, ?, ?, ?)", row) }
        }
        try await TestServer.withDatabase(options: databaseOptions) { pg in
            if !databaseOptions.isEmpty {
                // The locale does fold non-ASCII letters, which the requests must not.
                #expect(try await pg.fetchAll("SELECT 'É' ILIKE 'é' AS folded").first?["folded"] == true)
            }
            try await pg.execute(
                """
                CREATE TABLE items(id INTEGER PRIMARY KEY, title TEXT, priority INTEGER, score DOUBLE PRECISION,
                done BOOLEAN NOT NULL, big BIGINT)
                """
            )
            for row in rows { try await pg.execute("INSERT INTO items VALUES ($1, $2, $3, $4, $5, $6)", row) }
            for iteration in 0..<(fixed?.count ?? Self.iterations) {
                let request =
                    fixed?[iteration] ?? Self.randomRequest(textOrder: databaseOptions.isEmpty, using: &random)
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

    static let titles: [String?] = [
        nil, "milk", "Milk", "bread", "50% off", "a_b", "zebra", "", "Ünïcode", "MILKY", "été", "ÉTÉ", "Été", "ünïcode",
        "1", "10",
    ]

    /// Integers at the edges: of 32 bits (an INTEGER column on PostgreSQL), of doubles' exact
    /// integers (2⁵³), and of 64 bits.
    static let bigs: [Int64?] = [
        nil, 0, 3, -7, 2_147_483_647, 2_147_483_648, -2_147_483_649, 9_007_199_254_740_992, 9_007_199_254_740_993,
        1_152_921_504_606_847_232, .max, .min,
    ]

    /// Numbers of other types than the columns they are compared with.
    static let reals: [Double] = [
        2.5, -0.5, 2.0, 3e9, -3e9, 9_007_199_254_740_992, 9_007_199_254_740_994, 1_152_921_504_606_847_232, 9.3e18,
        -9.3e18, 0x1p63, .infinity, -.infinity, 1e300,
    ]

    static func randomRow(id: Int, using random: inout SeededGenerator) -> [DatabaseValue] {
        let title = titles.randomElement(using: &random)!.map(DatabaseValue.text) ?? .null
        let priority: DatabaseValue =
            Int.random(in: 0...6, using: &random) == 0 ? .null : .integer(Int64.random(in: 0...5, using: &random))
        let score: DatabaseValue =
            Int.random(in: 0...6, using: &random) == 0
            ? .null : .real(Double(Int.random(in: -8...8, using: &random)) / 2)
        let big = bigs.randomElement(using: &random)!.map(DatabaseValue.integer) ?? .null
        return [.integer(Int64(id)), title, priority, score, .integer(Bool.random(using: &random) ? 1 : 0), big]
    }

    /// `textOrder`: whether text may be sorted and compared with `<`, which follows the
    /// database's collation on PostgreSQL, and bytes on SQLite (the same under the C locale).
    static func randomRequest(textOrder: Bool, using random: inout SeededGenerator) -> QueryInterfaceRequest<Row> {
        var request = Table("items").filter(randomFilter(depth: 0, textOrder: textOrder, using: &random))
        var orderings: [any SQLOrderingTerm] = []
        for _ in 0..<Int.random(in: 0...2, using: &random) {
            let column = Column(
                ((textOrder ? ["title"] : []) + ["priority", "score", "done", "big"]).randomElement(using: &random)!)
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

    static func randomFilter(depth: Int, textOrder: Bool, using random: inout SeededGenerator) -> SQLExpression {
        if depth < 3, Int.random(in: 0...2, using: &random) == 0 {
            let lhs = randomFilter(depth: depth + 1, textOrder: textOrder, using: &random)
            let rhs = randomFilter(depth: depth + 1, textOrder: textOrder, using: &random)
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
        let big = Column("big")
        let real = reals.randomElement(using: &random)!
        let integer = bigs.compactMap { $0 }.randomElement(using: &random)!
        let numeric = [priority, big, score].randomElement(using: &random)!
        switch Int.random(in: 0...27, using: &random) {
        case 0: return priority == int
        case 1: return priority != int
        case 2: return priority < int
        case 3: return priority >= int
        case 4: return score > Double(int) / 2
        case 5: return score <= int
        case 6: return title == text
        case 7: return textOrder ? title < text : title == text
        case 8: return title.like(["%i%", "M%", "b_ead", "%", "50%", "%K%"].randomElement(using: &random)!)
        case 9: return title.contains(["%", "_", "il", "IL", "ü"].randomElement(using: &random)!)
        case 10: return title.hasPrefix(["m", "M", "50%", ""].randomElement(using: &random)!)
        case 11:
            return priority.in(
                (0..<Int.random(in: 0...3, using: &random)).map { _ in Int.random(in: 0...5, using: &random) })
        case 12: return score.between(-1.5, Double(int))
        case 13: return Bool.random(using: &random) ? priority == nil : title != nil
        case 14: return Column("done") == Bool.random(using: &random)
        // Reals and 64-bit integers against INTEGER and BIGINT columns; integers against REAL
        // only where a double holds them exactly (beyond 2^53, PostgreSQL compares them as doubles).
        case 16:
            return [numeric == real, numeric != real, numeric < real, numeric >= real].randomElement(using: &random)!
        case 17:
            let column = [priority, big].randomElement(using: &random)!
            return [column == integer, column > integer, column <= integer].randomElement(using: &random)!
        case 18:
            return [score < Double(integer), score <= 3_000_000_000, score > -3_000_000_000].randomElement(
                using: &random)!
        case 19: return numeric.between(-real, real)
        case 20: return priority.in([2.5, 3.0, Double(int)])
        case 21: return big.in([integer, 9_007_199_254_740_993])
        // LIKE on numbers compares their text, as SQLite does.
        case 22:
            return [priority, big].randomElement(using: &random)!.like(
                ["1%", "%", "_", "%3", "-%", "9%"].randomElement(using: &random)!)
        case 23: return big.contains(["00", "-", "7"].randomElement(using: &random)!)
        // Non-ASCII letters: SQLite's LIKE folds ASCII only.
        case 24: return title.like(["%é%", "%É%", "été", "ÉTÉ", "%Ü%", "%ü%", "_t_"].randomElement(using: &random)!)
        case 25: return title.contains(["É", "é", "ü", "Ü", "T"].randomElement(using: &random)!)
        case 26: return title.hasPrefix(["É", "é", "ét", "ÉT"].randomElement(using: &random)!)
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
