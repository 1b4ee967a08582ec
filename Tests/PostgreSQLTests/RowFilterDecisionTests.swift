import Foundation
import PostgreSQL
import PostgreSQLTestServer
import QueryBuilder
import SQLCore
import Testing

/// Where Swift decides that a row cannot match a query-builder filter under PostgreSQL's rules,
/// the server agrees: random filters over columns of many types and collations, against random
/// rows, each filter run on the server. A live value skips a refetch on that decision, so a
/// wrong "cannot match" would leave it stale.
///
/// Seeded and reproducible: `ROW_FILTER_DECISION_SEED` picks the seed.
@Suite(.postgreSQLInstalled)
struct RowFilterDecisionTests {
    static let seeds: [UInt64] =
        ProcessInfo.processInfo.environment["ROW_FILTER_DECISION_SEED"].flatMap(UInt64.init).map { [$0] } ?? [1, 2]

    /// The columns, in table order after `id`: name and type as created.
    static let columns: [(name: String, type: String)] = [
        ("i4", "int4"), ("i8", "int8"), ("i2", "int2"), ("c", #"text COLLATE "C""#), ("d", "text"),
        ("v", #"varchar(20) COLLATE "C""#), ("p", #"text COLLATE "POSIX""#), ("ci", "text COLLATE ci"),
        ("bp", "char(3)"), ("f", "float8"), ("n", "numeric"), ("b", "bool"),
    ]
    static let texts = ["", "a", "A", "b", "ab", "é", "e\u{301}", "É", "a b", "Z", "zz", "ß", "ss", "5", "10"]
    static let integers: [Int64] = [
        0, 1, -1, 2, 5, 10, 32767, -32768, 3_000_000_000, -9_007_199_254_740_993, .max, .min,
    ]

    @Test(arguments: seeds)
    func swiftNeverRulesOutARowThatPostgreSQLMatches(seed: UInt64) async throws {
        var random = SeededGenerator(seed: seed)
        try await TestServer.withDatabase { db in
            try await db.execute(
                "CREATE COLLATION ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false)")
            try await db.execute(
                "CREATE TABLE t(id int4 PRIMARY KEY, "
                    + Self.columns.map { "\($0.name) \($0.type)" }.joined(separator: ", ") + ")")
            // The traits come from the catalog, as a live source reads them.
            let catalog = try await db.fetchAll(
                """
                SELECT a.attname AS name, ty.typname AS type, co.collname AS collation,
                       coalesce(co.collisdeterministic, true) AS deterministic
                FROM pg_catalog.pg_attribute a
                JOIN pg_catalog.pg_type ty ON ty.oid = a.atttypid
                LEFT JOIN pg_catalog.pg_collation co ON co.oid = a.attcollation
                WHERE a.attrelid = 't'::regclass AND a.attnum > 0 AND NOT a.attisdropped
                ORDER BY a.attnum
                """)
            let names: [String] = try catalog.map { try $0["name"] }
            let traits = try catalog.map { row in
                RowFilter.ColumnTraits.postgreSQL(
                    type: try row["type"], collation: try row["collation"], isDeterministic: try row["deterministic"])
            }
            #expect(names == ["id"] + Self.columns.map(\.name))

            var rows: [[DatabaseValue]] = []
            for id in 1...120 {
                let row = [DatabaseValue.integer(Int64(id))] + Self.columns.map { Self.randomValue($0.name, &random) }
                rows.append(row)
                let placeholders = (1...row.count).map { "$\($0)" }.joined(separator: ", ")
                try await db.execute("INSERT INTO t VALUES (\(placeholders))", row)
            }
            // As a change carries them: integers and text as they are, other types as placeholders.
            let images = rows.map { row in
                row.indices.map { index -> DatabaseValue in
                    switch traits[index].postgreSQL {
                    case .integer?, .text?: row[index]
                    default: .null
                    }
                }
            }

            var decided = 0
            for iteration in 0..<150 {
                let filter = Self.randomFilter(depth: 0, &random)
                let request = Table("t").select(Column("id")).filter(filter).asRequest(of: Int.self)
                let sql = try request.rendered(.postgreSQL).sql
                let node = RowFilterCompiler.compile(filter) { name in names.firstIndex(of: name) }
                let rowFilter = RowFilter(root: node ?? .unknown, columns: traits, encoding: .utf8)
                let matching = Set(try await request.fetchAll(db))
                for (index, image) in images.enumerated() {
                    let id = index + 1
                    let mayMatch = rowFilter.mayMatch(image)
                    if !mayMatch { decided += 1 }
                    #expect(
                        mayMatch || !matching.contains(id),
                        "seed \(seed), filter \(iteration): \(sql), row \(rows[index]): PostgreSQL matches it")
                }
            }
            // Not vacuous: a good share of the rows were ruled out.
            #expect(decided > 150 * 120 / 10, "only \(decided) rows were ruled out")
        }
    }

    static func randomValue(_ column: String, _ random: inout SeededGenerator) -> DatabaseValue {
        if Int.random(in: 0..<8, using: &random) == 0 { return .null }
        switch column {
        case "i4": return .integer(Int64.random(in: -3...12, using: &random))
        case "i8": return .integer(integers.randomElement(using: &random)!)
        case "i2": return .integer(Int64.random(in: -3...12, using: &random))
        case "f": return .real([0.5, -0.0, 1, 2.5, 1e300, -3].randomElement(using: &random)!)
        case "n": return .integer(Int64.random(in: -3...12, using: &random))
        case "b": return .integer(Int64.random(in: 0...1, using: &random))
        case "bp": return .text(["a", "ab", "abc", "é"].randomElement(using: &random)!)
        default: return .text(texts.randomElement(using: &random)!)
        }
    }

    /// A random filter over the columns, with bound values of the column's kind or of another
    /// kind that PostgreSQL also accepts there.
    static func randomFilter(depth: Int, _ random: inout SeededGenerator) -> SQLExpression {
        if depth < 3, Int.random(in: 0...3, using: &random) == 0 {
            let lhs = randomFilter(depth: depth + 1, &random)
            let rhs = randomFilter(depth: depth + 1, &random)
            switch Int.random(in: 0...2, using: &random) {
            case 0: return lhs && rhs
            case 1: return lhs || rhs
            default: return !lhs
            }
        }
        let name = columns.randomElement(using: &random)!.name
        let column = Column(name)
        let value: DatabaseValue
        switch name {
        case "i4", "i2", "n":
            value =
                Bool.random(using: &random)
                ? .integer(Int64.random(in: -3...12, using: &random))
                : .real([2.5, 3, -0.5].randomElement(using: &random)!)
        case "i8": value = .integer(integers.randomElement(using: &random)!)
        case "f": value = .real([0.5, 1, 2.5, 1e300, 0].randomElement(using: &random)!)
        case "b": value = .integer(Int64.random(in: 0...1, using: &random))
        default:
            value =
                Int.random(in: 0..<6, using: &random) == 0 ? .integer(5) : .text(texts.randomElement(using: &random)!)
        }
        switch Int.random(in: 0...9, using: &random) {
        case 0: return column == value
        case 1: return column != value
        case 2: return column < value
        case 3: return column <= value
        case 4: return column > value
        case 5: return column >= value
        case 6: return column == nil
        case 7: return column != nil
        case 8:
            var list = [value, randomValue(name, &random)]
            if name == "b" || name == "f" || name.hasPrefix("i") || name == "n" {
                list = list.map { if case .text = $0 { .null } else { $0 } }
            }
            return column.in(list)
        default: return column.between(value, value)
        }
    }
}
