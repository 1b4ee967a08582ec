import CSQLite
import SQLite

/// One value of a row as the writers format it, pointing into the storage it came from (SQLite's
/// column buffers, or a ``DatabaseValue``): valid only inside the closure that hands it out.
///
/// `text` is always well-formed UTF-8. Text that SQLite holds as other bytes is `invalidText`,
/// its bytes as stored: never repaired, since that would change the value without a word. CSV
/// and TSV write the bytes as they are, the table and Markdown formats show each bad byte as
/// `\xHH`, and JSON, which cannot hold them, refuses the row (see ``InvalidTextError``).
enum Cell {
    case null
    case integer(Int64)
    case real(Double)
    case text(UnsafeBufferPointer<UInt8>)
    case invalidText(UnsafeBufferPointer<UInt8>)
    case blob(UnsafeBufferPointer<UInt8>)
    /// A PostgreSQL `boolean`: `t` or `f`, PostgreSQL's text form, and `true` or `false` in JSON.
    /// (SQLite has no booleans: its rows hold 1 and 0.)
    case boolean(Bool)
    /// A number as its database's exact decimal text (PostgreSQL's `numeric`, `real` and
    /// `double precision` text forms), written as it is, unquoted, aligned as a number.
    case number(UnsafeBufferPointer<UInt8>)

    /// A cell's value copied out of SQLite's buffers, to be written after the next step.
    enum Owned: Hashable, Sendable {
        case value(DatabaseValue)
        case invalidText([UInt8])
        case boolean(Bool)
        case number(String)

        /// Column `column` of the statement's current row.
        init(_ statement: OpaquePointer, _ column: Int32) {
            self = Cell.withColumn(statement, column) { cell in
                switch cell {
                case .invalidText(let bytes): .invalidText(Array(bytes))
                default: .value(DatabaseValue(sqliteStatement: statement, column: column))
                }
            }
        }
    }

    /// Calls `body` with `owned`.
    static func withOwned<T>(_ owned: Owned, _ body: (Cell) throws -> T) rethrows -> T {
        switch owned {
        case .value(let value): try withValue(value, body)
        case .invalidText(let bytes): try bytes.withUnsafeBufferPointer { try body(.invalidText($0)) }
        case .boolean(let value): try body(.boolean(value))
        case .number(var text): try text.withUTF8 { try body(.number($0)) }
        }
    }

    /// Calls `body` with column `column` of the statement's current row.
    @inline(__always)
    static func withColumn<T>(
        _ statement: OpaquePointer, _ column: Int32, _ body: (Cell) throws -> T
    ) rethrows -> T {
        switch sqlite3_column_type(statement, column) {
        case SQLITE_INTEGER:
            return try body(.integer(sqlite3_column_int64(statement, column)))
        case SQLITE_FLOAT:
            return try body(.real(sqlite3_column_double(statement, column)))
        case SQLITE_TEXT:
            guard let text = sqlite3_column_text(statement, column) else {
                return try body(.text(.init(start: nil, count: 0)))
            }
            let bytes = UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(statement, column)))
            return try body(UTF8Validation.isValid(bytes) ? .text(bytes) : .invalidText(bytes))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(statement, column))
            guard count > 0, let blob = sqlite3_column_blob(statement, column) else {
                return try body(.blob(.init(start: nil, count: 0)))
            }
            return try body(.blob(UnsafeBufferPointer(start: blob.assumingMemoryBound(to: UInt8.self), count: count)))
        default:
            return try body(.null)
        }
    }

    /// Calls `body` with `value`.
    static func withValue<T>(_ value: DatabaseValue, _ body: (Cell) throws -> T) rethrows -> T {
        switch value {
        case .null: return try body(.null)
        case .integer(let integer): return try body(.integer(integer))
        case .real(let real): return try body(.real(real))
        case .text(var text): return try text.withUTF8 { try body(.text($0)) }
        case .blob(let bytes): return try bytes.withUnsafeBufferPointer { try body(.blob($0)) }
        }
    }

    var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    var isNumber: Bool {
        switch self {
        case .integer, .real, .number: true
        default: false
        }
    }
}

/// Text that is not UTF-8, which JSON cannot hold: the row and column, and what to do instead.
struct InvalidTextError: Error, CustomStringConvertible {
    /// The row's position in the result, from 1.
    var row: Int
    var column: String
    var bytes: [UInt8]

    var description: String {
        let offset = UTF8Validation.firstInvalidByte(in: bytes) ?? 0
        let hex = String(bytes[offset], radix: 16, uppercase: true)
        let quoted = String.quotedIdentifier(column)
        return "row \(row), column \"\(column)\": the text is not UTF-8 (byte \(offset + 1) is 0x"
            + (hex.count == 1 ? "0" + hex : hex) + "), and JSON cannot hold it unchanged\n"
            + "  export with --format csv or tsv, which write the bytes as stored, "
            + "or select CAST(\(quoted) AS BLOB) to get them as a blob"
    }
}

extension ByteBuffer {
    /// An integer in decimal, as `String(_:)` writes it.
    @inline(__always)
    mutating func appendDecimal(_ value: Int64) {
        let out = reserve(20)
        var magnitude = value.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
        let written = withUnsafeMutableBytes(of: &digits) { scratch -> Int in
            var index = scratch.count
            repeat {
                index -= 1
                scratch[index] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude % 10)
                magnitude /= 10
            } while magnitude != 0
            if value < 0 {
                index -= 1
                scratch[index] = UInt8(ascii: "-")
            }
            let length = scratch.count - index
            out.update(
                from: scratch.baseAddress!.advanced(by: index).assumingMemoryBound(to: UInt8.self), count: length)
            return length
        }
        count += written
    }

    /// A real as `String(_:)` writes it: the shortest text that reads back to the same double,
    /// `inf`, `-inf` or `nan`.
    mutating func appendReal(_ value: Double) {
        append(value.description)
    }

    /// A blob in SQL's notation, `X'00FF'`: uppercase hexadecimal digits.
    mutating func appendBlobLiteral(_ bytes: UnsafeBufferPointer<UInt8>) {
        let digits: StaticString = "0123456789ABCDEF"
        let out = reserve(3 + 2 * bytes.count)
        out[0] = UInt8(ascii: "X")
        out[1] = UInt8(ascii: "'")
        var index = 2
        digits.withUTF8Buffer { hex in
            for byte in bytes {
                out[index] = hex[Int(byte >> 4)]
                out[index + 1] = hex[Int(byte & 0xF)]
                index += 2
            }
        }
        out[index] = UInt8(ascii: "'")
        count += index + 1
    }

    /// `bytes` in standard base64 (RFC 4648, with `=` padding), as Foundation's
    /// `base64EncodedString()` writes it.
    mutating func appendBase64(_ bytes: UnsafeBufferPointer<UInt8>) {
        let alphabet: StaticString = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
        let out = reserve((bytes.count + 2) / 3 * 4)
        var index = 0
        alphabet.withUTF8Buffer { table in
            var position = 0
            while position + 3 <= bytes.count {
                let group =
                    UInt32(bytes[position]) << 16 | UInt32(bytes[position + 1]) << 8 | UInt32(bytes[position + 2])
                out[index] = table[Int(group >> 18)]
                out[index + 1] = table[Int(group >> 12 & 0x3F)]
                out[index + 2] = table[Int(group >> 6 & 0x3F)]
                out[index + 3] = table[Int(group & 0x3F)]
                index += 4
                position += 3
            }
            let rest = bytes.count - position
            guard rest > 0 else { return }
            let group = UInt32(bytes[position]) << 16 | (rest == 2 ? UInt32(bytes[position + 1]) << 8 : 0)
            out[index] = table[Int(group >> 18)]
            out[index + 1] = table[Int(group >> 12 & 0x3F)]
            out[index + 2] = rest == 2 ? table[Int(group >> 6 & 0x3F)] : UInt8(ascii: "=")
            out[index + 3] = UInt8(ascii: "=")
            index += 4
        }
        count += index
    }
}

/// Byte tests shared by the writers.
enum TextBytes {
    /// `\xHH`, lowercase, as the table format shows a byte it cannot print.
    static func hexEscape(_ byte: UInt8) -> String {
        let digits = Array("0123456789abcdef".unicodeScalars)
        var escape = "\\x"
        escape.unicodeScalars.append(digits[Int(byte >> 4)])
        escape.unicodeScalars.append(digits[Int(byte & 0xF)])
        return escape
    }

    /// Bytes that are not all UTF-8 as text to show: each run of UTF-8 passed through `shown`,
    /// each byte of a bad sequence as `\xHH`.
    static func showing(_ bytes: UnsafeBufferPointer<UInt8>, _ shown: (String) -> String) -> String {
        var text = ""
        var run = ""
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var offset = 0
        loop: while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded):
                run.unicodeScalars.append(Unicode.UTF8.decode(encoded))
                offset += encoded.count
            case .error(let length):
                text += shown(run)
                run = ""
                for index in offset..<(offset + length) { text += hexEscape(bytes[index]) }
                offset += length
            case .emptyInput:
                break loop
            }
        }
        return text + shown(run)
    }

    /// How many columns a terminal gives `text`, whose control characters are already escaped:
    /// a character is as wide as its widest scalar, East Asian Wide and Fullwidth scalars and
    /// emoji shown as emoji take two columns, and marks and other zero-width scalars none.
    static func displayWidth(_ text: String) -> Int {
        if !text.utf8.contains(where: { $0 >= 0x80 }) { return text.utf8.count }
        var width = 0
        for character in text {
            var widest = 0
            for scalar in character.unicodeScalars {
                // U+FE0F asks for the emoji presentation of the character it follows.
                widest = max(widest, scalar == "\u{FE0F}" ? 2 : scalarWidth(scalar))
            }
            width += widest
        }
        return width
    }

    private static func scalarWidth(_ scalar: Unicode.Scalar) -> Int {
        let value = scalar.value
        if value < 0x300 { return 1 }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return 0
        default: break
        }
        // Hangul medial vowels and final consonants join the syllable before them.
        if (0x1160...0x11FF).contains(value) { return 0 }
        if scalar.properties.isEmojiPresentation { return 2 }
        return wideRanges.contains { $0.contains(value) } ? 2 : 1
    }

    /// The blocks Unicode's East Asian Width property marks Wide (W) or Fullwidth (F), as
    /// terminals lay them out (emoji are found by their presentation property instead).
    private static let wideRanges: [ClosedRange<UInt32>] = [
        0x1100...0x115F, 0x2329...0x232A, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
        0xA000...0xA4CF, 0xA960...0xA97F, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE10...0xFE19, 0xFE30...0xFE6F,
        0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x16FE0...0x16FE4, 0x17000...0x18AFF, 0x1B000...0x1B16F,
        0x1F200...0x1F2FF, 0x20000...0x2FFFD, 0x30000...0x3FFFD,
    ]

    /// Whether every byte is printable ASCII, so that each byte is one character on the screen.
    @inline(__always)
    static func isPrintableASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        for byte in bytes where byte < 0x20 || byte >= 0x7F { return false }
        return true
    }

    /// Whether every byte is ASCII.
    @inline(__always)
    static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        for byte in bytes where byte >= 0x80 { return false }
        return true
    }

    /// Whether SQLite reads the text as a number, as ``DatabaseValue/numericAffinity(of:)`` is
    /// non-nil: a whole decimal literal with optional surrounding whitespace.
    static func isNumericLiteral(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        func isSpace(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || (byte >= 0x09 && byte <= 0x0D) }
        func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
        var index = 0
        var end = bytes.count
        while index < end, isSpace(bytes[index]) { index += 1 }
        while end > index, isSpace(bytes[end - 1]) { end -= 1 }
        if index < end, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
        var digits = 0
        while index < end, isDigit(bytes[index]) {
            index += 1
            digits += 1
        }
        if index < end, bytes[index] == UInt8(ascii: ".") {
            index += 1
            while index < end, isDigit(bytes[index]) {
                index += 1
                digits += 1
            }
        }
        guard digits > 0 else { return false }
        if index < end, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < end, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            var exponent = 0
            while index < end, isDigit(bytes[index]) {
                index += 1
                exponent += 1
            }
            guard exponent > 0 else { return false }
        }
        return index == end
    }

    /// The double whose written form (``ByteBuffer/appendReal(_:)``) is the same number as the
    /// decimal `text`, or nil when none is: a decimal written as that double would be read back
    /// as another number (rounded, or `0.0` for `1e-400`).
    static func exactDouble(_ text: String) -> Double? {
        guard let double = Double(text), double.isFinite, let decimal = Decimal(text),
            let written = Decimal(double.description)
        else { return nil }
        return decimal == written ? double : nil
    }

    /// A decimal number as its sign, significant digits and the power of ten of the last one.
    private struct Decimal: Equatable {
        var negative: Bool
        var digits: [UInt8]
        var exponent: Int

        /// `[-]digits[.digits][e[±]digits]`, else nil.
        init?(_ text: String) {
            var bytes = Array(text.utf8)[...]
            negative = bytes.first == UInt8(ascii: "-")
            if negative || bytes.first == UInt8(ascii: "+") { bytes = bytes.dropFirst() }
            var power = 0
            if let e = bytes.firstIndex(where: { $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }) {
                guard let value = Int(String(decoding: bytes[(e + 1)...], as: UTF8.self)) else { return nil }
                power = value
                bytes = bytes[..<e]
            }
            var digits: [UInt8] = []
            var seenPoint = false
            for byte in bytes {
                if byte == UInt8(ascii: "."), !seenPoint {
                    seenPoint = true
                } else if byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                    digits.append(byte)
                    if seenPoint { power -= 1 }
                } else {
                    return nil
                }
            }
            guard !digits.isEmpty else { return nil }
            while digits.last == UInt8(ascii: "0") {
                digits.removeLast()
                power += 1
            }
            if let first = digits.firstIndex(where: { $0 != UInt8(ascii: "0") }) {
                digits.removeFirst(first)
            } else {
                // Zero, whatever its sign or exponent.
                (negative, digits, power) = (false, [], 0)
            }
            self.digits = digits
            exponent = power
        }
    }
}
