import Foundation
import Testing

@testable import SQLite

/// Random filters, sorts and limits, run by SQLite through the query builder and evaluated in
/// Swift by `Reference` over the same rows: both must give the same rows in the same order.
@Suite("Query builder: differential against a Swift reference")
struct DifferentialTests {
    static let columns = ["n", "s", "m"]
    static let textPieces = ["a", "A", "b", "é", "É", "ß", "%", "_", "'", "\"", "\\", "😀", "x", " ", "1", "日本", "it's"]
    static let integers: [Int64] = [0, 1, -1, 2, 7, 42, -42, .max, .max - 1, .min, .min + 1, 1 << 53, (1 << 53) + 1]
    static let reals: [Double] = [
        0.5, -1.5, 2.0, 42.25, 9.223372036854776e18, -9.223372036854776e18, 9_007_199_254_740_992.0, 1e300,
    ]

    struct Generator {
        var random: SplitMix64

        mutating func int(_ range: Range<Int>) -> Int { Int.random(in: range, using: &random) }
        mutating func chance(_ percent: Int) -> Bool { int(0..<100) < percent }
        mutating func pick<T>(_ items: [T]) -> T { items[int(0..<items.count)] }

        mutating func text() -> String {
            (0..<int(0..<4)).map { _ in pick(DifferentialTests.textPieces) }.joined()
        }

        mutating func number() -> DatabaseValue {
            if chance(10) { return .null }
            return chance(70) ? .integer(pick(DifferentialTests.integers)) : .real(pick(DifferentialTests.reals))
        }

        mutating func value(for column: String) -> DatabaseValue {
            switch column {
            case "n": return number()
            case "s": return chance(12) ? .null : .text(text())
            default:
                switch int(0..<5) {
                case 0: return .null
                case 1: return .integer(pick(DifferentialTests.integers))
                case 2: return .real(pick(DifferentialTests.reals))
                case 3: return .text(text())
                default: return .blob((0..<int(0..<3)).map { _ in UInt8(int(0..<3) * 127) })
                }
            }
        }

        /// Values are drawn like the stored ones, so comparisons hit as well as miss.
        mutating func comparand(for column: String) -> DatabaseValue {
            value(for: pick([column, column, "m"]))
        }

        mutating func pattern(from pieces: [String]) -> String {
            (0..<int(0..<5)).map { _ in pick(pieces) }.joined()
        }

        mutating func predicate(depth: Int) -> Reference.Predicate {
            if depth > 0 && chance(45) {
                switch int(0..<5) {
                case 0, 1: return .and(predicate(depth: depth - 1), predicate(depth: depth - 1))
                case 2, 3: return .or(predicate(depth: depth - 1), predicate(depth: depth - 1))
                default: return .not(predicate(depth: depth - 1))
                }
            }
            let column = pick(DifferentialTests.columns)
            switch int(0..<10) {
            case 0, 1, 2: return .compare(column, pick(Reference.Predicate.Op.allCases), comparand(for: column))
            case 3:
                return .compareColumns(column, pick(Reference.Predicate.Op.allCases), pick(DifferentialTests.columns))
            case 4: return .inList(column, (0..<int(0..<4)).map { _ in comparand(for: column) })
            case 5: return .between(column, comparand(for: column), comparand(for: column))
            case 6: return .like("s", pattern(from: ["a", "A", "%", "_", "é", "É", "'", "x", "😀", "\\", "b"]))
            case 7: return .glob("s", pattern(from: ["a", "A", "*", "?", "é", "x", "😀", "'", "b"]))
            case 8: return .contains("s", pick([text(), pick(["%", "_", "\\", "a%", "_'"])]))
            default: return .hasPrefix("s", text())
            }
        }
    }

    typealias Stored = (id: Int64, values: [String: DatabaseValue])

    static func makeDatabase(_ generator: inout Generator, rows: Int) throws -> (Database, [Stored]) {
        let db = try Database()
        // No declared types: no affinity, so SQLite compares stored and bound values as they are.
        try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, n, s, m)")
        var stored: [Stored] = []
        for id in 1...Int64(rows) {
            let values = Dictionary(uniqueKeysWithValues: columns.map { ($0, generator.value(for: $0)) })
            try db.execute(
                "INSERT INTO t(id, n, s, m) VALUES (?, ?, ?, ?)",
                [.integer(id), values["n"]!, values["s"]!, values["m"]!])
            stored.append((id, values))
        }
        return (db, stored)
    }

    struct Sort {
        var column: String
        var direction: SQLOrdering.Direction?
        var nulls: SQLOrdering.NullPlacement?

        var term: any SQLOrderingTerm {
            let column = Column(column)
            switch (direction, nulls) {
            case (nil, nil): return column
            case (nil, .first?): return column.nullsFirst
            case (nil, .last?): return column.nullsLast
            case (.ascending?, let nulls):
                return nulls == nil ? column.asc : (nulls == .first ? column.asc.nullsFirst : column.asc.nullsLast)
            case (.descending?, let nulls):
                return nulls == nil ? column.desc : (nulls == .first ? column.desc.nullsFirst : column.desc.nullsLast)
            }
        }

        /// SQLite's ORDER BY for one term: NULLs first ascending and last descending by default.
        func compare(_ a: DatabaseValue, _ b: DatabaseValue) -> Int {
            let descending = direction == .descending
            if a.isNull || b.isNull {
                if a.isNull && b.isNull { return 0 }
                let nullsFirst = nulls.map { $0 == .first } ?? !descending
                return a.isNull == nullsFirst ? -1 : 1
            }
            let order = Reference.order(a, b)
            return descending ? -order : order
        }
    }

    @Test("random filters, sorts and limits agree with the reference", arguments: [UInt64(1), 2, 3, 0xDEAD_BEEF])
    func differential(seed: UInt64) throws {
        var generator = Generator(random: SplitMix64(seed: seed))
        let (db, stored) = try Self.makeDatabase(&generator, rows: 60)
        var matchedSomething = 0
        for index in 0..<100 {
            let predicate = generator.chance(95) ? generator.predicate(depth: generator.int(0..<4)) : nil
            let sorts = (0..<generator.int(0..<3)).map { _ in
                Sort(
                    column: generator.pick(Self.columns),
                    direction: generator.pick([nil, .ascending, .descending]),
                    nulls: generator.pick([nil, nil, .first, .last]))
            }
            let limit: (Int, Int?)? =
                generator.chance(40) ? (generator.int(0..<20), generator.chance(50) ? generator.int(0..<30) : nil) : nil

            var request = Table("t").all()
            if let predicate { request = request.filter(predicate.expression) }
            // The primary key last makes the order total, so both sides must agree exactly.
            request = request.sort(sorts.map(\.term) + [Column("id")])
            if let limit { request = request.limit(limit.0, offset: limit.1) }

            let actual = try request.fetchAll(db).map { try $0["id"] as Int64 }

            // Only true keeps a row: false and unknown (NULL) both drop it.
            var expected = stored.filter { row in predicate.map { $0.evaluate(row.values) == true } ?? true }
            expected.sort { a, b in
                for sort in sorts {
                    let order = sort.compare(a.values[sort.column]!, b.values[sort.column]!)
                    if order != 0 { return order < 0 }
                }
                return a.id < b.id
            }
            var expectedIDs = expected.map(\.id)
            if let limit { expectedIDs = Array(expectedIDs.dropFirst(limit.1 ?? 0).prefix(limit.0)) }

            #expect(actual == expectedIDs, "seed \(seed) case \(index): \(request)")
            #expect(try request.fetchCount(db) == expectedIDs.count, "seed \(seed) case \(index): count of \(request)")
            if !expectedIDs.isEmpty && expectedIDs.count < stored.count { matchedSomething += 1 }
        }
        // Guards against a generator that only ever matches everything or nothing.
        #expect(matchedSomething > 20)
    }

    @Test("the reference's corner cases match SQLite directly")
    func referenceCorners() throws {
        let db = try Database()
        func sqlite(_ sql: String, _ arguments: [DatabaseValue]) throws -> Int? {
            try db.fetchOne(Int.self, sql, arguments)
        }
        #expect(try sqlite("SELECT ? < ?", [.integer(.max), .real(9.223372036854776e18)]) == 1)
        #expect(Reference.order(.integer(.max), .real(9.223372036854776e18)) == -1)
        #expect(try sqlite("SELECT ? = ?", [.integer(1 << 53 + 1), .real(9_007_199_254_740_992.0)]) == 0)
        #expect(Reference.order(.integer((1 << 53) + 1), .real(9_007_199_254_740_992.0)) == 1)
        #expect(try sqlite("SELECT 'é' LIKE 'É'", []) == 0)
        #expect(try sqlite("SELECT 'a' LIKE 'A'", []) == 1)
        #expect(try sqlite("SELECT 'a' GLOB 'A'", []) == 0)
        #expect(try sqlite("SELECT '😀' LIKE '_'", []) == 1)
        #expect(Reference.like(Array("😀".unicodeScalars)[...], Array("_".unicodeScalars)[...], escape: nil))
    }
}
