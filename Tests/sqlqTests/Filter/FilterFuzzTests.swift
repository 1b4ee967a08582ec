import Foundation
import SQLite
import Testing

@testable import sqlq

/// Seeded fuzzing of the filter language, on a real database with a column of each affinity.
///
/// Every input must end in a ``FilterError`` or in SQL that runs: no crash, no SQL that SQLite
/// rejects, and no value of the input in the SQL text. The run is reproducible from its seed; a
/// failure names the input. `SQLQ_FUZZ_COUNT` sets the number of inputs (100,000 by default;
/// `Scripts/fuzz-filters` runs a million), `SQLQ_FUZZ_SEED` the seed.
@Suite("Filter fuzzing", .onProcessThreads)
struct FilterFuzzTests {
    static let count = ProcessInfo.processInfo.environment["SQLQ_FUZZ_COUNT"].flatMap { Int($0) } ?? 100_000
    static let seed = ProcessInfo.processInfo.environment["SQLQ_FUZZ_SEED"].flatMap { UInt64($0) } ?? 20_261_123

    /// The table's columns, with values of their kind for the generator.
    static let columns: [(name: String, values: [String])] = [
        ("i", ["0", "1", "-7", "42", "9223372036854775807", "1e3", "'12'", "' 3 '", "'0x5'", "null", "true"]),
        ("r", ["1.5", "-0.25", "3", "1e400", "'2.5'", "'nan'", "null", "false"]),
        ("n", ["7", "2.5", "'8'", "'inf'", "2026-03-01", "null"]),
        ("x", ["'milk'", "'it''s'", "'a\\nb'", "'%_\\\\'", "''", "3", "2026-03-01T09:30", "true", "null"]),
        ("b", ["'x'", "1", "null"]),
        ("a", ["'any'", "5", "2.5", "null", "true", "2026-03-01"]),
        ("d", ["2026-03-01", "2026-03-01 09:30:15.250Z", "'soon'", "1", "null"]),
        ("\"odd \"\"name\"\" x\"", ["1", "'1'", "null"]),
        ("\"Order\"", ["1", "2"]),
    ]

    let db: Database
    let schema: TableSchema

    init() throws {
        db = try Database()
        try db.executeScript(
            """
            CREATE TABLE t (
                i INTEGER, r REAL, n NUMERIC, x TEXT, b BLOB, a, d DATETIME, "odd ""name"" x" INTEGER, "order" INT
            );
            INSERT INTO t VALUES
                (1, 1.5, 7, 'milk', x'00', 'any', '2026-03-01', 1, 1),
                (-7, NULL, '8', 'it''s', NULL, 5, '2026-03-01 09:30:15.250', NULL, 2),
                (NULL, 2.5, NULL, '', 'x', NULL, NULL, 0, NULL);
            """)
        schema = try TableSchema(db, table: "t")
    }

    /// The run is split in parts, with seeds of their own, so that the parts run in parallel.
    static let parts = 4

    @Test(
        "Random text, mutated filters and generated filters end in a typed error or in bound SQL that runs",
        arguments: 0..<parts)
    func fuzz(part: Int) throws {
        var generator = SeededGenerator(seed: Self.seed &+ UInt64(part))
        var outcomes = (compiled: 0, rejected: 0)
        let count = Self.count / Self.parts
        for round in 0..<count {
            let input: String
            var isGrammatical = false
            switch round % 3 {
            case 0: input = Self.randomText(using: &generator)
            case 1: input = Self.mutate(Self.filter(using: &generator), using: &generator)
            default:
                input = Self.filter(using: &generator)
                isGrammatical = true
            }
            if try check(input, isGrammatical: isGrammatical, explains: round % 10 == 2) {
                outcomes.compiled += 1
            } else {
                outcomes.rejected += 1
            }
        }
        // The generator must exercise both ends; a change that made everything fail would pass.
        #expect(outcomes.compiled > count / 5)
        #expect(outcomes.rejected > count / 5)
    }

    @Test(
        "Filters at the nesting limit run, in the shapes that cost SQLite most, also among many --where",
        arguments: [("and not (", "or not ("), ("and (", "or ("), ("and not (not (", "or (")])
    func nestingLimit(even: String, odd: String) throws {
        var (deepestRun, shallowestRefused) = (0, Int.max)
        for extraFilters in [0, 1, 20, 300] {
            for depth in (FilterParser.maximumNesting - 3)...(FilterParser.maximumNesting + 3) {
                var filter = ""
                var opened = 0
                for level in 0..<depth {
                    let connective = level % 2 == 0 ? even : odd
                    filter += "i = \(level) " + connective
                    opened += connective.count { $0 == "(" }
                }
                filter += "x not between 'a' and 'b'" + String(repeating: ")", count: opened)
                let filters = [filter] + Array(repeating: "r is not null or i in (1, 2)", count: extraFilters)
                do {
                    let expression = try FilterCompiler.compile(
                        filters, schema: schema, db: db, reserved: (2, "--limit and --offset take 2 of them"))
                    let request = Table("t").all().filter(expression).limit(5, offset: 1)
                    _ = try request.fetchCount(db)
                    _ = try db.fetchAll("EXPLAIN QUERY PLAN " + request.sql, request.arguments)
                    deepestRun = max(deepestRun, depth)
                } catch let error as FilterError {
                    guard case .limit = error.reason else {
                        Issue.record("\(error)")
                        continue
                    }
                    shallowestRefused = min(shallowestRefused, depth)
                }
            }
        }
        // The limit is reached: the deepest filters that run are refused one level deeper.
        #expect(deepestRun >= FilterParser.maximumNesting)
        #expect(shallowestRefused == deepestRun + 1)
    }

    /// Compiles `input`, runs its SQL, and returns whether it compiled.
    private func check(_ input: String, isGrammatical: Bool, explains: Bool) throws -> Bool {
        let expression: SQLExpression
        do {
            expression = try FilterCompiler.compile(
                [input], schema: schema, db: db, reserved: (2, "--limit and --offset take 2 of them"))
        } catch let error as FilterError {
            if isGrammatical {
                switch error.reason {
                case .typeMismatch, .limit: break
                case .syntax, .unknownColumn, .foreignKey: Issue.record("a generated filter was refused: \(error)")
                }
            }
            _ = error.description
            return false
        } catch {
            Issue.record("not a FilterError for \(input.debugDescription): \(error)")
            return false
        }
        let request = Table("t").all().filter(expression)
        let sql = request.countSQL
        if let leak = Self.unboundText(in: sql) {
            Issue.record("\(leak.debugDescription) is in the SQL of \(input.debugDescription): \(sql.prefix(300))")
        }
        do {
            _ = try request.fetchCount(db)
            if explains { _ = try db.fetchAll("EXPLAIN QUERY PLAN " + request.sql, request.arguments) }
        } catch {
            Issue.record(
                Comment(rawValue: String("the SQL of \(input.debugDescription) failed: \(error)".prefix(2000))))
        }
        return true
    }

    // MARK: Inputs

    private static let fragments = [
        "(", ")", "((", "))", " not ", " and ", " or ", "=", "==", "!=", "<>", "<", "<=", ">", ">=", "!", "'", "''",
        "\"",
        " like ", " glob ", " contains ", " in ", " between ", " is ", " null", " true", " false", ",", " ", "\t",
        "\n", "i", "r", "x", "d", "a", "b", "n", "nope", "\"odd \"\"name\"\" x\"", "0", "7", "-", ".", "e", "1e5",
        "0x5", "2026-03-01", "T09:30", "\\", "\\n", "\\q", "%", "_", "é", "🙂", "\u{0}", "\u{301}", "$", ";", "--",
        "/*", "SELECT", "DROP TABLE t", "?", "?1", ":a", "@", "[", "]", "`",
    ]

    static func randomText(using generator: inout SeededGenerator) -> String {
        var text = ""
        for _ in 0..<Int.random(in: 0..<16, using: &generator) {
            if Int.random(in: 0..<8, using: &generator) == 0 {
                text.unicodeScalars.append(
                    Unicode.Scalar(UInt32.random(in: 0..<0x1_0000, using: &generator)) ?? "?")
            } else {
                text += fragments.randomElement(using: &generator)!
            }
        }
        return text
    }

    static func mutate(_ filter: String, using generator: inout SeededGenerator) -> String {
        var scalars = Array(filter.unicodeScalars)
        for _ in 0..<Int.random(in: 1...3, using: &generator) {
            let position = Int.random(in: 0...scalars.count, using: &generator)
            switch Int.random(in: 0..<5, using: &generator) {
            case 0 where position < scalars.count:
                let end = min(scalars.count, position + Int.random(in: 1...6, using: &generator))
                scalars.removeSubrange(position..<end)
            case 1:
                scalars.insert(contentsOf: fragments.randomElement(using: &generator)!.unicodeScalars, at: position)
            case 2 where position + 1 < scalars.count:
                scalars.swapAt(position, position + 1)
            case 3 where position < scalars.count:
                let end = min(scalars.count, position + Int.random(in: 1...12, using: &generator))
                scalars.insert(contentsOf: scalars[position..<end], at: end)
            default:
                scalars.removeSubrange(position...)
            }
        }
        var text = ""
        text.unicodeScalars.append(contentsOf: scalars)
        return text
    }

    /// A filter of the grammar: mostly small, sometimes long chains, deep nesting or many nots.
    static func filter(using generator: inout SeededGenerator) -> String {
        switch Int.random(in: 0..<100, using: &generator) {
        case 0:
            // A long chain; one in eight has thousands of terms.
            let count = Int.random(
                in: 17...(Int.random(in: 0..<8, using: &generator) == 0 ? 3000 : 200), using: &generator)
            let connective = Bool.random(using: &generator) ? " or " : " and "
            return (0..<count).map { _ in predicate(using: &generator) }.joined(separator: connective)
        case 1..<4:
            // Deep nesting, around the limit.
            var text = ""
            let depth = Int.random(in: 1...(FilterParser.maximumNesting + 4), using: &generator)
            for level in 0..<depth {
                text += predicate(using: &generator) + (level % 2 == 0 ? " and " : " or ")
                text += Bool.random(using: &generator) ? "not (" : "("
            }
            return text + predicate(using: &generator) + String(repeating: ")", count: depth)
        case 4..<6:
            let nots = Int.random(in: 1...500, using: &generator)
            let parentheses = Int.random(in: 0...500, using: &generator)
            return String(repeating: "not ", count: nots) + String(repeating: "(", count: parentheses)
                + expression(depth: 2, using: &generator) + String(repeating: ")", count: parentheses)
        default:
            return expression(depth: Int.random(in: 0...4, using: &generator), using: &generator)
        }
    }

    static func expression(depth: Int, using generator: inout SeededGenerator) -> String {
        guard depth > 0, Int.random(in: 0..<3, using: &generator) > 0 else { return predicate(using: &generator) }
        switch Int.random(in: 0..<4, using: &generator) {
        case 0: return "not " + expression(depth: depth - 1, using: &generator)
        case 1: return "(" + expression(depth: depth - 1, using: &generator) + ")"
        default:
            let connective = Bool.random(using: &generator) ? " and " : " or "
            return (0..<Int.random(in: 2...4, using: &generator)).map { _ in
                expression(depth: depth - 1, using: &generator)
            }.joined(separator: connective)
        }
    }

    static func predicate(using generator: inout SeededGenerator) -> String {
        let column = columns.randomElement(using: &generator)!
        func value() -> String { column.values.randomElement(using: &generator)! }
        let not = Bool.random(using: &generator) ? " not" : ""
        switch Int.random(in: 0..<9, using: &generator) {
        case 0: return column.name
        case 1:
            let other = columns.randomElement(using: &generator)!.name
            return column.name + " " + ["=", "!=", "<", ">="].randomElement(using: &generator)! + " " + other
        case 2: return value() + " " + ["<", "==", "<>"].randomElement(using: &generator)! + " " + column.name
        case 3:
            let pattern = ["'%a%'", "'*'", "'_'", "'100%'", "''"].randomElement(using: &generator)!
            return column.name + not + " " + ["like", "glob", "contains"].randomElement(using: &generator)! + " "
                + pattern
        case 4:
            return column.name + not + " in ("
                + (0..<Int.random(in: 1...4, using: &generator)).map { _ in value() }
                .joined(separator: ", ") + ")"
        case 5: return column.name + not + " between " + value() + " and " + value()
        case 6: return column.name + " is" + not + " null"
        default:
            return column.name + " " + ["=", "!=", "<", "<=", ">", ">="].randomElement(using: &generator)! + " "
                + value()
        }
    }

    // MARK: The SQL

    private static let keywords: Set<String> = [
        "SELECT", "count", "FROM", "WHERE", "AND", "OR", "NOT", "IS", "NULL", "IN", "BETWEEN", "LIKE", "GLOB", "ESCAPE",
    ]

    /// The first piece of the SQL that is neither a quoted name, a placeholder, punctuation, an
    /// operator, a keyword of the builder nor LIKE's escape character: text that came from the
    /// input unbound.
    static func unboundText(in sql: String) -> String? {
        let scalars = Array(sql.unicodeScalars)
        var index = 0
        func text(_ range: Range<Int>) -> String {
            var string = ""
            string.unicodeScalars.append(contentsOf: scalars[range])
            return string
        }
        while index < scalars.count {
            let scalar = scalars[index]
            switch scalar {
            case "\"":
                index += 1
                while index < scalars.count {
                    if scalars[index] == "\"" {
                        if index + 1 < scalars.count, scalars[index + 1] == "\"" {
                            index += 2
                            continue
                        }
                        break
                    }
                    index += 1
                }
                index += 1
            case " ", "?", "(", ")", ",", "*", "=", "<", ">":
                index += 1
            case "'":
                guard text(index..<min(index + 3, scalars.count)) == "'\\'" else { return text(index..<scalars.count) }
                index += 3
            case _ where scalar.properties.isAlphabetic:
                let start = index
                while index < scalars.count, scalars[index].properties.isAlphabetic { index += 1 }
                let word = text(start..<index)
                if !keywords.contains(word) { return word }
            default:
                return text(index..<min(index + 20, scalars.count))
            }
        }
        return nil
    }
}
