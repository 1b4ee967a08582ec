import SQLCore

/// Rows changed in a table, as a change record or notification carries them: each row a JSON
/// object keyed by column name (`row_to_json` of the row), before (`old`) and after (`new`)
/// the statement. Which old row became which new one is not said, nor needed.
struct RowImages: Sendable, Equatable {
    /// One column of a row: its name, by its bytes, and its value.
    struct Column: Sendable, Equatable {
        let name: ExactString
        let value: JSONValue
    }

    /// The rows before the statement: those it updated or deleted.
    var old: [[Column]]
    /// The rows after the statement: those it inserted or updated.
    var new: [[Column]]

    /// The images of `json`, `{"o":[…],"n":[…]}` (keys in any order, each once); nil when it is
    /// anything else. The channel is open to any role, so nothing is trusted: the text is read
    /// exactly, at most ``maxBytes`` bytes, nested at most ``maxDepth`` deep.
    static func parse(_ json: Substring.UTF8View) -> RowImages? {
        guard json.count <= maxBytes else { return nil }
        var reader = JSONReader(bytes: Array(json))
        guard let images = try? reader.readImages(), reader.isAtEnd else { return nil }
        return images
    }

    /// More than a notification can hold (8,000 bytes): the triggers cut each record's JSON
    /// there, so that a row too wide to read is taken as any row.
    static let maxBytes = 8000
    /// How deep a column's value may nest arrays and objects.
    static let maxDepth = 32
}

/// A JSON value as a row image holds it. Numbers keep their text, so that an `int8` stays exact;
/// arrays and objects (values of types whose columns are never compared) keep nothing.
enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(String)
    case string(String)
    case composite
}

/// Reads the JSON of row images from bytes: RFC 8259's grammar, with limits.
private struct JSONReader {
    struct Malformed: Error {}

    let bytes: [UInt8]
    var position = 0

    var isAtEnd: Bool {
        mutating get {
            skipWhitespace()
            return position == bytes.count
        }
    }

    mutating func readImages() throws -> RowImages {
        var old: [[RowImages.Column]]?
        var new: [[RowImages.Column]]?
        try expect(UInt8(ascii: "{"))
        var first = true
        while !consume(UInt8(ascii: "}")) {
            if !first { try expect(UInt8(ascii: ",")) }
            first = false
            let key = try readString()
            try expect(UInt8(ascii: ":"))
            switch key {
            case "o" where old == nil: old = try readRows()
            case "n" where new == nil: new = try readRows()
            default: throw Malformed()
            }
        }
        guard let old, let new else { throw Malformed() }
        return RowImages(old: old, new: new)
    }

    private mutating func readRows() throws -> [[RowImages.Column]] {
        var rows: [[RowImages.Column]] = []
        try expect(UInt8(ascii: "["))
        var first = true
        while !consume(UInt8(ascii: "]")) {
            if !first { try expect(UInt8(ascii: ",")) }
            first = false
            rows.append(try readRow())
        }
        return rows
    }

    /// One row: an object whose keys are distinct by their bytes.
    private mutating func readRow() throws -> [RowImages.Column] {
        var columns: [RowImages.Column] = []
        var names: Set<ExactString> = []
        try expect(UInt8(ascii: "{"))
        var first = true
        while !consume(UInt8(ascii: "}")) {
            if !first { try expect(UInt8(ascii: ",")) }
            first = false
            let name = ExactString(try readString())
            guard names.insert(name).inserted else { throw Malformed() }
            try expect(UInt8(ascii: ":"))
            columns.append(RowImages.Column(name: name, value: try readValue(depth: 0)))
        }
        return columns
    }

    private mutating func readValue(depth: Int) throws -> JSONValue {
        guard depth < RowImages.maxDepth else { throw Malformed() }
        skipWhitespace()
        guard position < bytes.count else { throw Malformed() }
        switch bytes[position] {
        case UInt8(ascii: "\""):
            return .string(try readString())
        case UInt8(ascii: "n"):
            try literal("null")
            return .null
        case UInt8(ascii: "t"):
            try literal("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try literal("false")
            return .bool(false)
        case UInt8(ascii: "["):
            position += 1
            var first = true
            while !consume(UInt8(ascii: "]")) {
                if !first { try expect(UInt8(ascii: ",")) }
                first = false
                _ = try readValue(depth: depth + 1)
            }
            return .composite
        case UInt8(ascii: "{"):
            position += 1
            var first = true
            while !consume(UInt8(ascii: "}")) {
                if !first { try expect(UInt8(ascii: ",")) }
                first = false
                _ = try readString()
                try expect(UInt8(ascii: ":"))
                _ = try readValue(depth: depth + 1)
            }
            return .composite
        default:
            return .number(try readNumber())
        }
    }

    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`, as its text.
    private mutating func readNumber() throws -> String {
        let start = position
        _ = consumeRaw(UInt8(ascii: "-"))
        if consumeRaw(UInt8(ascii: "0")) {
            // No leading zeros.
        } else {
            guard digits() > 0 else { throw Malformed() }
        }
        if consumeRaw(UInt8(ascii: ".")) {
            guard digits() > 0 else { throw Malformed() }
        }
        if consumeRaw(UInt8(ascii: "e")) || consumeRaw(UInt8(ascii: "E")) {
            if !consumeRaw(UInt8(ascii: "+")) { _ = consumeRaw(UInt8(ascii: "-")) }
            guard digits() > 0 else { throw Malformed() }
        }
        return String(decoding: bytes[start..<position], as: UTF8.self)
    }

    private mutating func digits() -> Int {
        let start = position
        while position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) {
            position += 1
        }
        return position - start
    }

    /// A string, its escapes resolved. A NUL, which no PostgreSQL text holds, or half a surrogate
    /// pair, is malformed.
    private mutating func readString() throws -> String {
        try expect(UInt8(ascii: "\""))
        var text: [UInt8] = []
        while true {
            guard position < bytes.count else { throw Malformed() }
            let byte = bytes[position]
            position += 1
            switch byte {
            case UInt8(ascii: "\""):
                // The bytes came from a `String`, so they are UTF-8, and escapes add whole scalars.
                return String(decoding: text, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard position < bytes.count else { throw Malformed() }
                let escape = bytes[position]
                position += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): text.append(escape)
                case UInt8(ascii: "b"): text.append(0x08)
                case UInt8(ascii: "f"): text.append(0x0C)
                case UInt8(ascii: "n"): text.append(0x0A)
                case UInt8(ascii: "r"): text.append(0x0D)
                case UInt8(ascii: "t"): text.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800..<0xDC00).contains(scalar) {
                        guard consumeRaw(UInt8(ascii: "\\")), consumeRaw(UInt8(ascii: "u")) else { throw Malformed() }
                        let low = try hex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw Malformed() }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard scalar != 0, let unicode = Unicode.Scalar(scalar) else { throw Malformed() }
                    text.append(contentsOf: UTF8.encode(unicode)!)
                default:
                    throw Malformed()
                }
            default:
                guard byte >= 0x20 else { throw Malformed() }
                text.append(byte)
            }
        }
    }

    private mutating func hex4() throws -> UInt32 {
        guard position + 4 <= bytes.count else { throw Malformed() }
        var value: UInt32 = 0
        for byte in bytes[position..<position + 4] {
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw Malformed()
            }
            value = value << 4 | UInt32(digit)
        }
        position += 4
        return value
    }

    private mutating func literal(_ word: StaticString) throws {
        let count = word.utf8CodeUnitCount
        guard position + count <= bytes.count else { throw Malformed() }
        let expected = UnsafeBufferPointer(start: word.utf8Start, count: count)
        guard bytes[position..<position + count].elementsEqual(expected) else { throw Malformed() }
        position += count
    }

    private mutating func skipWhitespace() {
        while position < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[position]) { position += 1 }
    }

    /// Skips whitespace, then `byte` if it comes next.
    private mutating func consume(_ byte: UInt8) -> Bool {
        skipWhitespace()
        return consumeRaw(byte)
    }

    /// `byte`, if it comes next, with no whitespace before it.
    private mutating func consumeRaw(_ byte: UInt8) -> Bool {
        guard position < bytes.count, bytes[position] == byte else { return false }
        position += 1
        return true
    }

    private mutating func expect(_ byte: UInt8) throws {
        guard consume(byte) else { throw Malformed() }
    }
}
