import SQLite

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Reads rows from JSON: an array of objects (`json`) or one object per line (`ndjson`).
///
/// Each object is a row whose keys name columns; keys may differ between objects (a missing key
/// leaves the column's default). Strings become text, whole numbers integers, other numbers reals
/// (`1e999` is infinity), `true` and `false` 1 and 0, `null` NULL, an object
/// `{"$base64": true, "encoded": "…"}` a blob (as json export writes blobs), and any other
/// nested array or object its JSON text.
struct JSONRecordReader: RecordReader {
    enum Layout {
        /// `[ {…}, {…} ]`
        case array
        /// `{…}` on each line; blank lines are skipped.
        case lines
    }

    private let bytes: [UInt8]
    private let file: String
    private let layout: Layout
    private var index = 0
    private var line = 1
    private var started = false
    private var finished = false
    var bytesRead: Int { index }

    init(bytes: [UInt8], file: String, layout: Layout) {
        self.bytes = bytes
        self.file = file
        self.layout = layout
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
    }

    mutating func next() throws -> ImportRecord? {
        if finished { return nil }
        switch layout {
        case .array:
            skipWhitespace()
            if !started {
                started = true
                guard peek == UInt8(ascii: "[") else {
                    throw error(
                        index < bytes.count
                            ? "expected \"[\", the start of an array of objects"
                            : "the file is empty; expected an array of objects")
                }
                index += 1
                skipWhitespace()
                if peek == UInt8(ascii: "]") {
                    index += 1
                    return try finish()
                }
            } else {
                if peek == UInt8(ascii: "]") {
                    index += 1
                    return try finish()
                }
                guard peek == UInt8(ascii: ",") else { throw error("expected \",\" or \"]\" after an object") }
                index += 1
                skipWhitespace()
            }
            return try object()
        case .lines:
            while index < bytes.count,
                bytes[index] == UInt8(ascii: " ") || bytes[index] == UInt8(ascii: "\t")
                    || bytes[index] == UInt8(ascii: "\r") || bytes[index] == UInt8(ascii: "\n")
            {
                if bytes[index] == UInt8(ascii: "\n") { line += 1 }
                index += 1
            }
            if index >= bytes.count {
                finished = true
                return nil
            }
            let start = line
            let record: ImportRecord
            do {
                record = try object()
            } catch var error as ImportError where error.line != start {
                // An object left open runs into the next lines, where its error would point.
                error.message =
                    "the object is not closed on its line; NDJSON holds one object per line "
                    + "(line \(error.line): \(error.message))"
                error.line = start
                throw error
            }
            while index < bytes.count,
                bytes[index] == UInt8(ascii: " ") || bytes[index] == UInt8(ascii: "\t")
                    || bytes[index] == UInt8(ascii: "\r")
            {
                index += 1
            }
            if index < bytes.count, bytes[index] != UInt8(ascii: "\n") {
                throw error("more after the object; NDJSON holds one object per line")
            }
            return record
        }
    }

    private mutating func finish() throws -> ImportRecord? {
        skipWhitespace()
        guard index >= bytes.count else { throw error("more after the end of the array") }
        finished = true
        return nil
    }

    private var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    private func error(_ message: String) -> ImportError {
        ImportError(file: file, line: line, message: message)
    }

    private mutating func skipWhitespace() {
        while let byte = peek,
            byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r")
                || byte == UInt8(ascii: "\n")
        {
            if byte == UInt8(ascii: "\n") { line += 1 }
            index += 1
        }
    }

    private mutating func object() throws -> ImportRecord {
        let start = line
        guard peek == UInt8(ascii: "{") else {
            throw error(
                peek == nil
                    ? "the file ends where an object should be" : "expected an object, \"{\"; each row is a JSON object"
            )
        }
        index += 1
        var record = ImportRecord(line: start, columns: [], values: [])
        skipWhitespace()
        if peek == UInt8(ascii: "}") {
            index += 1
            return record
        }
        while true {
            skipWhitespace()
            guard peek == UInt8(ascii: "\"") else { throw error("expected a key in double quotes") }
            let key = try string()
            if record.columns.contains(key) { throw error("the key \"\(key)\" appears twice in one object") }
            skipWhitespace()
            guard peek == UInt8(ascii: ":") else { throw error("expected \":\" after the key \"\(key)\"") }
            index += 1
            skipWhitespace()
            record.columns.append(key)
            record.values.append(try value())
            skipWhitespace()
            if peek == UInt8(ascii: ",") {
                index += 1
                continue
            }
            guard peek == UInt8(ascii: "}") else { throw error("expected \",\" or \"}\" in an object") }
            index += 1
            return record
        }
    }

    private mutating func value() throws -> DatabaseValue {
        guard let byte = peek else { throw error("the file ends where a value should be") }
        switch byte {
        case UInt8(ascii: "\""):
            return .text(try string())
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            if byte == UInt8(ascii: "{"), let blob = try base64Blob() { return blob }
            let start = index
            try skipNested()
            return .text(String(decoding: bytes[start..<index], as: UTF8.self))
        case UInt8(ascii: "t"):
            try word("true")
            return .integer(1)
        case UInt8(ascii: "f"):
            try word("false")
            return .integer(0)
        case UInt8(ascii: "n"):
            try word("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return try number()
        default:
            throw error("expected a value: a string, a number, true, false, null, an array or an object")
        }
    }

    private mutating func word(_ text: String) throws {
        let expected = Array(text.utf8)
        guard index + expected.count <= bytes.count, Array(bytes[index..<(index + expected.count)]) == expected else {
            throw error("expected a value: a string, a number, true, false, null, an array or an object")
        }
        index += expected.count
    }

    private mutating func number() throws -> DatabaseValue {
        let start = index
        var isReal = false
        if peek == UInt8(ascii: "-") { index += 1 }
        func digits() -> Int {
            let first = index
            while let byte = peek, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") { index += 1 }
            return index - first
        }
        guard digits() > 0 else { throw error("a number needs digits") }
        if peek == UInt8(ascii: ".") {
            isReal = true
            index += 1
            guard digits() > 0 else { throw error("a number needs digits after its decimal point") }
        }
        if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
            isReal = true
            index += 1
            if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { index += 1 }
            guard digits() > 0 else { throw error("a number needs digits in its exponent") }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        // A whole number is what SQLite makes of it: an integer, or a real beyond Int64. A number
        // written with a point or an exponent stays a real, so that 1.0 round-trips as a real.
        if !isReal, let number = DatabaseValue.numericAffinity(of: text) { return number }
        guard let real = Double(text) else { throw error("\(text) is not a number") }
        return .real(real)
    }

    private mutating func string() throws -> String {
        index += 1
        var text: [UInt8] = []
        while let byte = peek {
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return String(decoding: text, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard let escaped = peek else { break }
                index += 1
                switch escaped {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): text.append(escaped)
                case UInt8(ascii: "b"): text.append(0x08)
                case UInt8(ascii: "f"): text.append(0x0C)
                case UInt8(ascii: "n"): text.append(0x0A)
                case UInt8(ascii: "r"): text.append(0x0D)
                case UInt8(ascii: "t"): text.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800..<0xDC00).contains(scalar) {
                        guard peek == UInt8(ascii: "\\"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u")
                        else {
                            throw error("a \\u escape holds half of a surrogate pair")
                        }
                        index += 2
                        let low = try hex4()
                        guard (0xDC00..<0xE000).contains(low) else {
                            throw error("a \\u escape holds half of a surrogate pair")
                        }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let unicode = Unicode.Scalar(scalar) else { throw error("a \\u escape is not a character") }
                    text.append(contentsOf: String(Character(unicode)).utf8)
                default:
                    throw error("unknown escape \\\(Character(Unicode.Scalar(escaped))) in a string")
                }
            case 0..<0x20:
                throw error("a line break or control character inside a string; write it as \\n or \\u00XX")
            default:
                text.append(byte)
            }
        }
        throw error("a string is never closed")
    }

    private mutating func hex4() throws -> UInt32 {
        guard index + 4 <= bytes.count,
            let value = UInt32(String(decoding: bytes[index..<(index + 4)], as: UTF8.self), radix: 16)
        else {
            throw error("\\u needs four hexadecimal digits")
        }
        index += 4
        return value
    }

    /// Reads `{"$base64": true, "encoded": "…"}`, in either order, as a blob; leaves any other
    /// object unread and returns nil.
    private mutating func base64Blob() throws -> DatabaseValue? {
        let (start, startLine) = (index, line)
        func restore() -> DatabaseValue? {
            (index, line) = (start, startLine)
            return nil
        }
        index += 1
        var flagged = false
        var encoded: String?
        for position in 0..<2 {
            skipWhitespace()
            guard peek == UInt8(ascii: "\"") else { return restore() }
            let key = try string()
            skipWhitespace()
            guard peek == UInt8(ascii: ":") else { return restore() }
            index += 1
            skipWhitespace()
            if key == "$base64", !flagged, peek == UInt8(ascii: "t") {
                try word("true")
                flagged = true
            } else if key == "encoded", encoded == nil, peek == UInt8(ascii: "\"") {
                encoded = try string()
            } else {
                return restore()
            }
            skipWhitespace()
            guard peek == UInt8(ascii: position == 0 ? "," : "}") else { return restore() }
            index += 1
        }
        guard let encoded, let data = Data(base64Encoded: encoded) else {
            throw error("a {\"$base64\": true, \"encoded\": …} blob whose text is not base64")
        }
        return .blob([UInt8](data))
    }

    /// Skips a nested array or object, checking its syntax. Iterative, with the open arrays and
    /// objects on a stack of its own, so that no depth of nesting can overflow the call stack.
    private mutating func skipNested() throws {
        // For each open container: true for an object, false for an array.
        var open: [Bool] = []
        var atValue = true
        while true {
            if atValue {
                if let byte = peek, byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") {
                    let isObject = byte == UInt8(ascii: "{")
                    index += 1
                    skipWhitespace()
                    if peek == UInt8(ascii: isObject ? "}" : "]") {
                        index += 1
                    } else {
                        open.append(isObject)
                        if isObject { try key() }
                        continue
                    }
                } else {
                    _ = try value()
                }
            }
            guard let isObject = open.last else { return }
            skipWhitespace()
            if peek == UInt8(ascii: ",") {
                index += 1
                skipWhitespace()
                if isObject { try key() }
                atValue = true
                continue
            }
            let closing: Unicode.Scalar = isObject ? "}" : "]"
            guard peek == UInt8(ascii: closing) else { throw error("expected \",\" or \"\(closing)\"") }
            index += 1
            open.removeLast()
            atValue = false
        }
    }

    /// Reads an object's key and its colon, leaving `index` on the value.
    private mutating func key() throws {
        skipWhitespace()
        guard peek == UInt8(ascii: "\"") else { throw error("expected a key in double quotes") }
        _ = try string()
        skipWhitespace()
        guard peek == UInt8(ascii: ":") else { throw error("expected \":\" after a key") }
        index += 1
        skipWhitespace()
    }
}
