import SQLite

/// Splits a filter expression into tokens.
///
/// - Names: letters, digits and `_`, not starting with a digit, or any text in double quotes
///   (`"order"`, with `""` for a quote) for names that are reserved words or hold other characters.
/// - Strings: single quotes, with `''` or `\'` for a quote and `\\`, `\n`, `\t`, `\r` escapes.
/// - Numbers: `42`, `-7`, `3.5`, `1e6`. Dates: `2026-03-01`, `2026-03-01T09:30`,
///   `2026-03-01 09:30:15.250`, with an optional `Z` or `±hh:mm` (at most 14 hours, as in
///   SQLite); in UTC a date-time must fall within the years 0000-9999.
/// - Reserved words, in any case: and, or, not, like, glob, contains, in, between, is, null, true, false.
struct FilterLexer {
    static let keywords: Set<String> = ["and", "or", "not", "like", "glob", "contains", "in", "between", "is"]

    // Unicode scalars rather than Characters: splitting text into graphemes costs more than
    // the query sqlq then runs. Positions are scalar offsets; errors turn them into columns.
    private let characters: [Unicode.Scalar]
    private let expression: String
    private var index = 0

    init(_ expression: String) {
        self.expression = expression
        characters = Array(expression.unicodeScalars)
    }

    /// Every token, ending with `.end`.
    static func tokens(_ expression: String) throws -> [FilterToken] {
        var lexer = FilterLexer(expression)
        var tokens: [FilterToken] = []
        while true {
            let token = try lexer.next()
            tokens.append(token)
            if token.kind == .end { return tokens }
        }
    }

    mutating func next() throws -> FilterToken {
        while index < characters.count, characters[index].isWhitespace { index += 1 }
        let start = index
        guard index < characters.count else { return FilterToken(kind: .end, position: start, length: 1) }
        let character = characters[index]
        func token(_ kind: FilterToken.Kind) -> FilterToken {
            FilterToken(kind: kind, position: start, length: index - start)
        }
        switch character {
        case "(":
            index += 1
            return token(.leftParenthesis)
        case ")":
            index += 1
            return token(.rightParenthesis)
        case ",":
            index += 1
            return token(.comma)
        case "=":
            index += 1
            if peek("=") { index += 1 }
            return token(.comparison(.equal))
        case "!":
            index += 1
            guard peek("=") else {
                throw error(
                    "\"!\" is not an operator; write != for \"not equal\" or not for negation", at: start, length: 1)
            }
            index += 1
            return token(.comparison(.notEqual))
        case "<":
            index += 1
            if peek("=") {
                index += 1
                return token(.comparison(.lessOrEqual))
            }
            if peek(">") {
                index += 1
                return token(.comparison(.notEqual))
            }
            return token(.comparison(.less))
        case ">":
            index += 1
            if peek("=") {
                index += 1
                return token(.comparison(.greaterOrEqual))
            }
            return token(.comparison(.greater))
        case "'":
            return token(.literal(FilterLiteral(kind: .text, value: .text(try string()))))
        case "\"":
            return try path(startingWith: try quotedIdentifier(), at: start)
        case "-"
        where index + 1 < characters.count && (characters[index + 1].isASCIIDigit || characters[index + 1] == "."):
            return try number()
        case _
        where character.isASCIIDigit
            || (character == "." && index + 1 < characters.count && characters[index + 1].isASCIIDigit):
            if let date = try date() { return date }
            return try number()
        case _ where character.isIdentifierStart:
            while index < characters.count, characters[index].isIdentifierPart { index += 1 }
            let word = Self.string(characters[start..<index])
            let lowered = word.lowercased()
            switch lowered {
            case "true": return token(.literal(FilterLiteral(kind: .boolean, value: .integer(1))))
            case "false": return token(.literal(FilterLiteral(kind: .boolean, value: .integer(0))))
            case "null": return token(.literal(FilterLiteral(kind: .null, value: .null)))
            case _ where Self.keywords.contains(lowered) && !peek("."): return token(.keyword(lowered))
            default: return try path(startingWith: word, at: start)
            }
        default:
            throw error("unexpected character \"\(character)\"", at: start, length: 1)
        }
    }

    private static func string(_ scalars: ArraySlice<Unicode.Scalar>) -> String {
        var string = String()
        // One scalar at a time: the generic `append(contentsOf:)` costs a metadata lookup that
        // weighs more than the whole expression.
        for scalar in scalars { string.unicodeScalars.append(scalar) }
        return string
    }

    /// A name, or a dotted path when a `.` follows it: `hero_id.name`, `"order".total`. The path
    /// is bounded here, before anything is resolved.
    private mutating func path(startingWith first: String, at start: Int) throws -> FilterToken {
        var steps = [ForeignKeyPath.Step(name: first, position: start, length: index - start)]
        while peek(".") {
            let dot = index
            index += 1
            let stepStart = index
            let name: String
            if peek("\"") {
                name = try quotedIdentifier()
            } else if index < characters.count, characters[index].isIdentifierStart {
                while index < characters.count, characters[index].isIdentifierPart { index += 1 }
                name = Self.string(characters[stepStart..<index])
            } else {
                throw error("expected a column name after \".\"", at: dot, length: 1)
            }
            steps.append(ForeignKeyPath.Step(name: name, position: stepStart, length: index - stepStart))
            if steps.count - 1 > ForeignKeyPath.maximumHops {
                throw FilterError(
                    reason: .limit(
                        "this name follows more than \(ForeignKeyPath.maximumHops) foreign keys; "
                            + "sqlq follows at most \(ForeignKeyPath.maximumHops) in one name"),
                    expression: expression, position: stepStart, length: index - stepStart)
            }
        }
        let kind: FilterToken.Kind = steps.count == 1 ? .identifier(first) : .path(steps)
        return FilterToken(kind: kind, position: start, length: index - start)
    }

    private func peek(_ character: Unicode.Scalar) -> Bool {
        index < characters.count && characters[index] == character
    }

    private func error(_ message: String, at position: Int, length: Int) -> FilterError {
        FilterError(reason: .syntax(message), expression: expression, position: position, length: length)
    }

    /// A 'string', from its opening quote.
    private mutating func string() throws -> String {
        let start = index
        index += 1
        var text = ""
        while index < characters.count {
            let character = characters[index]
            if character == "'" {
                if index + 1 < characters.count, characters[index + 1] == "'" {
                    text.unicodeScalars.append("'")
                    index += 2
                    continue
                }
                index += 1
                return text
            }
            if character == "\\" {
                guard index + 1 < characters.count else { break }
                switch characters[index + 1] {
                case "'": text.unicodeScalars.append("'")
                case "\\": text.unicodeScalars.append("\\")
                case "n": text.unicodeScalars.append("\n")
                case "t": text.unicodeScalars.append("\t")
                case "r": text.unicodeScalars.append("\r")
                default:
                    throw error(
                        "unknown escape \"\\\(characters[index + 1])\" in a string; write \\\\ for a backslash",
                        at: index, length: 2)
                }
                index += 2
                continue
            }
            text.unicodeScalars.append(character)
            index += 1
        }
        throw error("this string has no closing quote", at: start, length: 1)
    }

    private mutating func quotedIdentifier() throws -> String {
        let start = index
        index += 1
        var name = ""
        while index < characters.count {
            if characters[index] == "\"" {
                if index + 1 < characters.count, characters[index + 1] == "\"" {
                    name.unicodeScalars.append("\"")
                    index += 2
                    continue
                }
                index += 1
                guard !name.isEmpty else { throw error("empty column name", at: start, length: 2) }
                return name
            }
            name.unicodeScalars.append(characters[index])
            index += 1
        }
        throw error("this quoted name has no closing quote", at: start, length: 1)
    }

    private mutating func number() throws -> FilterToken {
        let start = index
        if characters[index] == "-" { index += 1 }
        var isReal = false
        while index < characters.count, characters[index].isASCIIDigit { index += 1 }
        if peek(".") {
            isReal = true
            index += 1
            while index < characters.count, characters[index].isASCIIDigit { index += 1 }
        }
        if peek("e") || peek("E") {
            isReal = true
            index += 1
            if peek("+") || peek("-") { index += 1 }
            while index < characters.count, characters[index].isASCIIDigit { index += 1 }
        }
        while index < characters.count, characters[index].isIdentifierPart || characters[index] == "." { index += 1 }
        let text = Self.string(characters[start..<index])
        // Swift's Double(_:) also reads "0x1p3", "nan" and "inf"; SQLite's reading decides.
        let literal: FilterLiteral? =
            if DatabaseValue.numericAffinity(of: text) == nil {
                nil
            } else if isReal {
                Double(text).map { FilterLiteral(kind: .real, value: .real($0)) }
            } else if let integer = Int64(text) {
                FilterLiteral(kind: .integer, value: .integer(integer))
            } else if text.unicodeScalars.allSatisfy({ $0.isASCIIDigit || $0 == "-" }), let real = Double(text) {
                // Too large for 64 bits: kept as a real, as SQLite does with such literals.
                FilterLiteral(kind: .real, value: .real(real))
            } else {
                nil
            }
        guard let literal else { throw error("\"\(text)\" is not a number", at: start, length: index - start) }
        return FilterToken(kind: .literal(literal), position: start, length: index - start)
    }

    /// A date or date-time starting here, or nil when the text is not shaped like one.
    private mutating func date() throws -> FilterToken? {
        let start = index
        func digits(_ count: Int, at offset: Int) -> Bool {
            guard offset + count <= characters.count else { return false }
            return characters[offset..<(offset + count)].allSatisfy(\.isASCIIDigit)
        }
        func character(_ character: Unicode.Scalar, at offset: Int) -> Bool {
            offset < characters.count && characters[offset] == character
        }
        guard digits(4, at: start), character("-", at: start + 4), digits(2, at: start + 5),
            character("-", at: start + 7), digits(2, at: start + 8)
        else { return nil }
        var end = start + 10
        var hasTime = false
        var offsetStart: Int?
        // A time after "T", or after one space when it is clearly a time (hh:mm).
        if character("T", at: end) || character(" ", at: end), digits(2, at: end + 1), character(":", at: end + 3),
            digits(2, at: end + 4)
        {
            hasTime = true
            end += 6
            if character(":", at: end), digits(2, at: end + 1) { end += 3 }
            if character(".", at: end), digits(1, at: end + 1) {
                end += 1
                while end < characters.count, characters[end].isASCIIDigit { end += 1 }
            }
            if character("Z", at: end) {
                end += 1
            } else if character("+", at: end) || character("-", at: end), digits(2, at: end + 1),
                character(":", at: end + 3), digits(2, at: end + 4)
            {
                offsetStart = end
                end += 6
            }
        }
        let text = Self.string(characters[start..<end])
        index = end
        if index < characters.count, characters[index].isIdentifierPart {
            while index < characters.count, characters[index].isIdentifierPart || characters[index] == ":" {
                index += 1
            }
            throw error(
                "\"\(Self.string(characters[start..<index]))\" is not a date; write dates as 2026-03-01 or 2026-03-01T09:30:00",
                at: start, length: index - start)
        }
        let value: DatabaseValue
        switch Self.dateValue(text, hasTime: hasTime) {
        case .valid(let valid): value = valid
        case .invalid:
            throw error("\"\(text)\" is not a valid date", at: start, length: end - start)
        case .invalidOffset:
            let offset = offsetStart ?? start
            throw error(
                "the offset \"\(Self.string(characters[offset..<end]))\" is not a time zone offset; "
                    + "offsets run from -14:00 to +14:00, with minutes below 60",
                at: offset, length: end - offset)
        case .outOfRange(let before):
            throw error(
                "\"\(text)\" is \(before ? "before the year 0000" : "after the year 9999") in UTC, "
                    + "where dates are compared; SQLite's dates run from 0000-01-01 to 9999-12-31",
                at: start, length: end - start)
        }
        return FilterToken(
            kind: .literal(FilterLiteral(kind: .date, value: value)), position: start, length: end - start)
    }

    /// What a date literal comes to.
    enum DateValue: Equatable {
        case valid(DatabaseValue)
        /// No such day or time.
        case invalid
        /// An offset SQLite's date functions refuse: beyond 14 hours, or 60 minutes or more.
        case invalidOffset
        /// Once moved to UTC, before the year 0000 or after 9999.
        case outOfRange(before: Bool)
    }

    /// A date alone stays `yyyy-MM-dd`; a date with a time becomes `yyyy-MM-dd HH:mm:ss.SSS` in
    /// UTC, the format this package stores dates in, with the fraction's further digits when it
    /// has more than three (trailing zeros dropped), so that text comparisons with stored dates
    /// are exact: `23:59:59.9999` sorts after `23:59:59.999`, and never rounds into the next day.
    /// The conversion is integer arithmetic on the calendar: no `Date`, no rounding.
    static func dateValue(_ text: String, hasTime: Bool) -> DateValue {
        let bytes = Array(text.utf8)
        func number(_ range: Range<Int>) -> Int {
            bytes[range].reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
        }
        let (year, month, day) = (number(0..<4), number(5..<7), number(8..<10))
        guard (1...12).contains(month), (1...CivilCalendar.days(in: month, of: year)).contains(day) else {
            return .invalid
        }
        guard hasTime else { return .valid(.text(String(text.prefix(10)))) }
        var hour = number(11..<13)
        var minute = number(14..<16)
        var index = 16
        var second = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: ":") {
            second = number(17..<19)
            index = 19
        }
        guard hour < 24, minute < 60, second < 60 else { return .invalid }
        var fraction = [UInt8]("000".utf8)
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            let digitsEnd =
                bytes[index...].firstIndex { $0 < UInt8(ascii: "0") || $0 > UInt8(ascii: "9") } ?? bytes.count
            fraction = Array(bytes[index..<digitsEnd])
            while fraction.count > 3, fraction.last == UInt8(ascii: "0") { fraction.removeLast() }
            while fraction.count < 3 { fraction.append(UInt8(ascii: "0")) }
            index = digitsEnd
        }
        var days = CivilCalendar.daysSince1970(year: year, month: month, day: day)
        if index < bytes.count, bytes[index] != UInt8(ascii: "Z") {
            let sign = bytes[index] == UInt8(ascii: "-") ? -1 : 1
            let (offsetHours, offsetMinutes) = (number(index + 1..<index + 3), number(index + 4..<index + 6))
            // SQLite's own date functions accept these offsets, and no others.
            guard offsetHours <= 14, offsetMinutes < 60 else { return .invalidOffset }
            // Local time minus the offset is UTC: counted in minutes from this day's start.
            var minutes = hour * 60 + minute - sign * (offsetHours * 60 + offsetMinutes)
            while minutes < 0 {
                minutes += 24 * 60
                days -= 1
            }
            while minutes >= 24 * 60 {
                minutes -= 24 * 60
                days += 1
            }
            (hour, minute) = (minutes / 60, minutes % 60)
        }
        let utc = CivilCalendar.date(daysSince1970: days)
        guard utc.year >= 0 else { return .outOfRange(before: true) }
        guard utc.year <= 9999 else { return .outOfRange(before: false) }
        func padded(_ value: Int, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return .valid(
            .text(
                "\(padded(utc.year, 4))-\(padded(utc.month, 2))-\(padded(utc.day, 2)) "
                    + "\(padded(hour, 2)):\(padded(minute, 2)):\(padded(second, 2))."
                    + String(decoding: fraction, as: UTF8.self)))
    }
}

extension Unicode.Scalar {
    var isASCIIDigit: Bool { value >= 0x30 && value <= 0x39 }
    var isIdentifierStart: Bool {
        isASCII
            ? (value >= 0x61 && value <= 0x7A) || (value >= 0x41 && value <= 0x5A) || self == "_"
            : properties.isAlphabetic
    }
    var isIdentifierPart: Bool {
        isIdentifierStart || isASCIIDigit || (!isASCII && properties.numericType != nil)
    }
    var isWhitespace: Bool { properties.isWhitespace }
}
