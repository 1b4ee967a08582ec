import CSQLite
import SQLite

/// One value of a row as the writers format it, pointing into the storage it came from (SQLite's
/// column buffers, or a ``SQLiteValue``): valid only inside the closure that hands it out.
///
/// Text is always well-formed UTF-8: text that SQLite holds as other bytes is handed out as
/// `String(decoding:as:)` repairs it, with U+FFFD for each bad sequence, as sqlq always printed it.
enum Cell {
    case null
    case integer(Int64)
    case real(Double)
    case text(UnsafeBufferPointer<UInt8>)
    case blob(UnsafeBufferPointer<UInt8>)

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
            if UTF8Validation.isValid(bytes) { return try body(.text(bytes)) }
            var repaired = String(decoding: bytes, as: UTF8.self)
            return try repaired.withUTF8 { try body(.text($0)) }
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
    static func withValue<T>(_ value: SQLiteValue, _ body: (Cell) throws -> T) rethrows -> T {
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
        case .integer, .real: true
        default: false
        }
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

    /// Whether SQLite reads the text as a number, as ``SQLiteValue/numericAffinity(of:)`` is
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
}
