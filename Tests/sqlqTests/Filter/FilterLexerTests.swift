import SQLite
import Testing

@testable import sqlq

@Suite("Filter lexer", .onProcessThreads)
struct FilterLexerTests {
    private func literal(_ text: String) throws -> FilterLiteral {
        let tokens = try FilterLexer.tokens(text)
        guard tokens.count == 2, case .literal(let literal) = tokens[0].kind else {
            Issue.record("\(text) is not one literal: \(tokens)")
            return FilterLiteral(kind: .null, value: .null)
        }
        #expect(tokens[0].length == text.count)
        return literal
    }

    @Test("Numbers: integers, negatives, reals, exponents")
    func numbers() throws {
        #expect(try literal("42") == FilterLiteral(kind: .integer, value: .integer(42)))
        #expect(try literal("-7") == FilterLiteral(kind: .integer, value: .integer(-7)))
        #expect(try literal("3.5") == FilterLiteral(kind: .real, value: .real(3.5)))
        #expect(try literal("1e3") == FilterLiteral(kind: .real, value: .real(1000)))
        #expect(try literal("99999999999999999999") == FilterLiteral(kind: .real, value: .real(1e20)))
        #expect(throws: FilterError.self) { try FilterLexer.tokens("3abc") }
    }

    @Test("A number is exactly what SQLite reads as one, checked on 20,000 random number-like texts")
    func numbersAgreeWithSQLite() throws {
        var generator = SeededGenerator(seed: 7)
        let alphabet = Array("0123456789.eE+-xXpPnaif")
        for _ in 0..<20_000 {
            var text = String("0123456789".randomElement(using: &generator)!)
            for _ in 0..<Int.random(in: 0..<8, using: &generator) {
                text.append(alphabet.randomElement(using: &generator)!)
            }
            let sqlite = DatabaseValue.numericAffinity(of: text)
            let tokens = try? FilterLexer.tokens(text)
            if let tokens, tokens.count == 2, case .literal(let literal) = tokens[0].kind,
                literal.kind == .integer || literal.kind == .real
            {
                #expect(sqlite != nil, "\(text) is a number to the filter but not to SQLite")
                #expect(literal.value.sqliteNumber == sqlite?.sqliteNumber, "\(text)")
            } else if sqlite != nil, text.last != "e", !text.contains("-") {
                Issue.record("\(text) is a number to SQLite but not to the filter: \(String(describing: tokens))")
            }
        }
        #expect(try literal("1.e3") == FilterLiteral(kind: .real, value: .real(1000)))
        #expect(try literal("5.") == FilterLiteral(kind: .real, value: .real(5)))
        for text in ["0x10", "1e", "1e+", "1.5.2", "0x1p3", "1.0x1"] {
            #expect(throws: FilterError.self, "\(text)") { try FilterLexer.tokens(text) }
        }
    }

    @Test("Strings with SQL and backslash escapes")
    func strings() throws {
        #expect(try literal("'it''s'") == FilterLiteral(kind: .text, value: .text("it's")))
        #expect(try literal(#"'it\'s'"#) == FilterLiteral(kind: .text, value: .text("it's")))
        #expect(try literal(#"'a\\b\n\t'"#) == FilterLiteral(kind: .text, value: .text("a\\b\n\t")))
        #expect(try literal("'été'") == FilterLiteral(kind: .text, value: .text("été")))
        #expect(throws: FilterError.self) { try FilterLexer.tokens(#"'\d'"#) }
        #expect(throws: FilterError.self) { try FilterLexer.tokens("'open") }
    }

    @Test("true, false and null in any case")
    func keywords() throws {
        #expect(try literal("TRUE") == FilterLiteral(kind: .boolean, value: .integer(1)))
        #expect(try literal("false") == FilterLiteral(kind: .boolean, value: .integer(0)))
        #expect(try literal("Null") == FilterLiteral(kind: .null, value: .null))
    }

    @Test("A date stays a date; a date-time becomes SQLite's UTC format")
    func dates() throws {
        #expect(try literal("2026-03-01") == FilterLiteral(kind: .date, value: .text("2026-03-01")))
        #expect(try literal("2026-03-01T09:30") == FilterLiteral(kind: .date, value: .text("2026-03-01 09:30:00.000")))
        #expect(
            try literal("2026-03-01 09:30:15.250")
                == FilterLiteral(kind: .date, value: .text("2026-03-01 09:30:15.250")))
        #expect(
            try literal("2026-03-01T09:30:00+02:00")
                == FilterLiteral(kind: .date, value: .text("2026-03-01 07:30:00.000")))
        #expect(try literal("2024-02-29") == FilterLiteral(kind: .date, value: .text("2024-02-29")))
        for invalid in ["2026-02-29", "2026-13-01", "2026-03-01T25:00", "2026-03-01x"] {
            #expect(throws: FilterError.self, "\(invalid)") { try FilterLexer.tokens(invalid) }
        }
    }

    @Test("Date-times are converted exactly: every fraction digit kept, offsets moved across days and years")
    func exactDates() throws {
        func date(_ text: String) throws -> DatabaseValue { try literal(text).value }
        #expect(try date("9999-12-31T23:59:59.9999") == .text("9999-12-31 23:59:59.9999"))
        #expect(try date("9999-12-31T23:59:59.999") == .text("9999-12-31 23:59:59.999"))
        #expect(try date("2026-03-01T09:30:00.5") == .text("2026-03-01 09:30:00.500"))
        #expect(try date("2026-03-01T09:30:00.123400") == .text("2026-03-01 09:30:00.1234"))
        #expect(try date("2026-03-01T09:30:00.000000001") == .text("2026-03-01 09:30:00.000000001"))
        #expect(try date("0000-01-01T00:00Z") == .text("0000-01-01 00:00:00.000"))
        #expect(try date("2024-03-01T00:30+01:00") == .text("2024-02-29 23:30:00.000"))
        #expect(try date("2025-12-31T23:30-14:00") == .text("2026-01-01 13:30:00.000"))
        #expect(try date("2026-03-01T09:30+14:00") == .text("2026-02-28 19:30:00.000"))
        #expect(try date("0001-01-01T00:00+01:00") == .text("0000-12-31 23:00:00.000"))
    }

    @Test("Date-times with offsets come to the UTC time SQLite computes, on 3,000 random ones")
    func datesAgreeWithSQLite() throws {
        var generator = SeededGenerator(seed: 21)
        let db = try Database(path: ":memory:")
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        for _ in 0..<3_000 {
            let year = [0, 1, 1969, 1970, 2000, 2024, 9998, 9999].randomElement(using: &generator)!
            let month = Int.random(in: 1...12, using: &generator)
            let day = Int.random(in: 1...28, using: &generator)
            let offset =
                "\(Bool.random(using: &generator) ? "+" : "-")\(two(Int.random(in: 0...14, using: &generator))):"
                + two(Int.random(in: 0...59, using: &generator))
            let text =
                "\(String(repeating: "0", count: 4 - String(year).count))\(year)-\(two(month))-\(two(day))T"
                + "\(two(Int.random(in: 0...23, using: &generator))):\(two(Int.random(in: 0...59, using: &generator)))"
                + ":\(two(Int.random(in: 0...59, using: &generator)))\(offset)"
            let expected = try db.fetchOne(String.self, "SELECT strftime('%Y-%m-%d %H:%M:%S', ?)", [.text(text)])
            switch FilterLexer.dateValue(text, hasTime: true) {
            case .valid(.text(let value)):
                #expect(value == (expected ?? "nil") + ".000", "\(text)")
            case .outOfRange:
                // SQLite's own answer is then outside 0000-9999 too (or none at all).
                #expect(
                    expected.map { !$0.hasPrefix("0") && !$0.hasPrefix("9") } ?? true, "\(text): \(expected ?? "nil")")
            default:
                Issue.record("\(text) was refused")
            }
        }
    }

    @Test("Offsets SQLite rejects, and dates outside years 0000-9999 in UTC, are errors under the culprit")
    func datesOutOfRange() throws {
        let cases: [(String, String, Int, Int)] = [
            ("d < 2026-03-01T09:30+99:99", "the offset \"+99:99\" is not a time zone offset", 20, 6),
            ("d < 2026-03-01T09:30+15:00", "the offset \"+15:00\" is not a time zone offset", 20, 6),
            ("d < 2026-03-01T09:30-00:60", "the offset \"-00:60\" is not a time zone offset", 20, 6),
            ("d < 0000-01-01T00:30+01:00", "\"0000-01-01T00:30+01:00\" is before the year 0000 in UTC", 4, 22),
            ("d < 9999-12-31T23:30-01:00", "\"9999-12-31T23:30-01:00\" is after the year 9999 in UTC", 4, 22),
        ]
        for (expression, message, position, length) in cases {
            do {
                _ = try FilterLexer.tokens(expression)
                Issue.record("\(expression) was accepted")
            } catch let error as FilterError {
                #expect(error.message.hasPrefix(message), "\(expression): \(error.message)")
                #expect(error.position == position, "\(expression)")
                #expect(error.length == length, "\(expression)")
            }
        }
    }

    @Test("Positions count characters, not bytes")
    func positions() throws {
        let tokens = try FilterLexer.tokens("title = 'é' and x")
        #expect(tokens.map(\.position) == [0, 6, 8, 12, 16, 17])
    }
}

extension DatabaseValue {
    /// The value as a double, so that integer and real spellings of one number compare equal.
    fileprivate var sqliteNumber: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .real(let value): value
        default: nil
        }
    }
}

@Suite("Filter lexer: dotted names", .onProcessThreads)
struct FilterLexerPathTests {
    @Test("A dotted name is one token with each step and where it was written, quoted steps too")
    func path() throws {
        let tokens = try FilterLexer.tokens(#"hero_id."te am".name = 1"#)
        #expect(
            tokens[0].kind
                == .path([
                    ForeignKeyPath.Step(name: "hero_id", position: 0, length: 7),
                    ForeignKeyPath.Step(name: "te am", position: 8, length: 7),
                    ForeignKeyPath.Step(name: "name", position: 16, length: 4),
                ]))
        #expect(tokens[0].position == 0 && tokens[0].length == 20)
        // A keyword before a dot is a name: the dot makes it a step.
        #expect(
            try FilterLexer.tokens("in.x")[0].kind
                == .path([.init(name: "in", position: 0, length: 2), .init(name: "x", position: 3, length: 1)]))
        #expect(try FilterLexer.tokens("a")[0].kind == .identifier("a"))
    }

    @Test("A dot without a name after it, or a chain past the bound, is an error at that place")
    func errors() throws {
        for (text, position) in [("a.", 1), ("a. b", 1), ("a.1", 1), ("a.'x'", 1)] {
            do {
                _ = try FilterLexer.tokens(text)
                Issue.record("\(text) lexed")
            } catch let error as FilterError {
                #expect(error.position == position, "\(text)")
            }
        }
        let long = "a" + String(repeating: ".b", count: ForeignKeyPath.maximumHops + 1)
        #expect(throws: FilterError.self) { try FilterLexer.tokens(long) }
        #expect(try FilterLexer.tokens("a" + String(repeating: ".b", count: ForeignKeyPath.maximumHops)).count == 2)
    }
}
