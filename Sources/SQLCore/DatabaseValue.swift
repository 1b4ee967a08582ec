/// A value stored in, or bound to, SQLite: one of its five storage classes.
///
/// Literals convert directly, so argument arrays read naturally:
///
/// ```swift
/// try db.execute("INSERT INTO items(title, done, note) VALUES (?, ?, ?)", ["milk", false, nil])
/// ```
///
/// Any supported Swift value converts with ``init(_:)``: `try DatabaseValue(Date())`.
///
/// Values are equal when SQLite's `BINARY` comparison finds them equal within one storage class:
/// text compares by its UTF-8 bytes, so canonically equivalent text in another Unicode
/// normalization (`"\u{E9}"` and `"e\u{301}"`), which Swift's `String` finds equal, is another
/// value here, as it is to SQLite. An integer never equals a real.
public enum DatabaseValue: Hashable, Sendable {
    /// SQL NULL.
    case null
    /// A 64-bit signed integer.
    case integer(Int64)
    /// A 64-bit IEEE floating point number.
    case real(Double)
    /// UTF-8 text.
    case text(String)
    /// Raw bytes.
    case blob([UInt8])

    @inlinable
    public static func == (lhs: DatabaseValue, rhs: DatabaseValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.integer(let a), .integer(let b)): a == b
        case (.real(let a), .real(let b)): a == b
        case (.text(let a), .text(let b)): a.hasSameBytes(as: b)
        case (.blob(let a), .blob(let b)): a == b
        default: false
        }
    }

    @inlinable
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null:
            hasher.combine(0 as UInt8)
        case .integer(let value):
            hasher.combine(1 as UInt8)
            hasher.combine(value)
        case .real(let value):
            hasher.combine(2 as UInt8)
            hasher.combine(value)
        case .text(let value):
            hasher.combine(3 as UInt8)
            // By the bytes, as `==` compares: `String`'s own hash follows canonical equivalence.
            value.hashBytes(into: &hasher)
        case .blob(let value):
            hasher.combine(4 as UInt8)
            hasher.combine(value)
        }
    }

    /// Converts any supported Swift value (Bool, Int, Double, String, Date, UUID, Data, Optionals…).
    /// Throws ``ValueConversionError`` for a value with no stored form, such as a `Date` outside
    /// the years 0000 through 9999.
    @inlinable
    public init(_ value: some DatabaseValueConvertible) throws {
        self = try value.databaseValue
    }

    /// True when the value is SQL NULL.
    @inlinable
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The name of the storage class, as SQLite's `typeof()` reports it.
    public var storageClass: String {
        switch self {
        case .null: "null"
        case .integer: "integer"
        case .real: "real"
        case .text: "text"
        case .blob: "blob"
        }
    }
}

extension DatabaseValue: ExpressibleByNilLiteral {
    /// `nil` is ``null``.
    @inlinable public init(nilLiteral: ()) { self = .null }
}

extension DatabaseValue: ExpressibleByIntegerLiteral {
    /// An integer literal is an ``integer(_:)``.
    @inlinable public init(integerLiteral value: Int64) { self = .integer(value) }
}

extension DatabaseValue: ExpressibleByFloatLiteral {
    /// A floating-point literal is a ``real(_:)``.
    @inlinable public init(floatLiteral value: Double) { self = .real(value) }
}

extension DatabaseValue: ExpressibleByStringLiteral {
    /// A string literal is a ``text(_:)``.
    @inlinable public init(stringLiteral value: String) { self = .text(value) }
}

extension DatabaseValue: ExpressibleByBooleanLiteral {
    /// `true` and `false` are the integers 1 and 0, as SQLite stores booleans.
    @inlinable public init(booleanLiteral value: Bool) { self = .integer(value ? 1 : 0) }
}

extension DatabaseValue: CustomStringConvertible {
    /// A SQL-literal-like rendering, for logs and `--explain` output. Never used to build SQL.
    public var description: String {
        switch self {
        case .null: return "NULL"
        case .integer(let value): return String(value)
        case .real(let value): return String(value)
        case .text(let value): return Self.textLiteral(value.utf8)
        case .blob(let bytes): return Self.blobLiteral(bytes[...])
        }
    }

    /// ``description``, cut for messages: a long text or blob shows its size and its start,
    /// and only that start is rendered, so describing a value of any size costs the same.
    package var abbreviatedDescription: String {
        let shownTextBytes = 60
        let shownBlobBytes = 24
        switch self {
        case .text(let value) where value.utf8.count > shownTextBytes:
            // Cut between Unicode scalars, which keeps the start valid UTF-8.
            let start = Substring(value.unicodeScalars.prefix(shownTextBytes / 2))
            return "of \(value.utf8.count) bytes: " + String(Self.textLiteral(start.utf8).dropLast()) + "..."
        case .blob(let bytes) where bytes.count > shownBlobBytes:
            return "of \(bytes.count) bytes: " + String(Self.blobLiteral(bytes.prefix(shownBlobBytes)).dropLast())
                + "..."
        default:
            return description
        }
    }

    /// `'text'`, with each quote doubled. Quotes are found among the UTF-8 bytes: a quote
    /// followed by a combining mark is one `Character` in Swift, yet a quote to SQL.
    private static func textLiteral(_ text: some Collection<UInt8>) -> String {
        var bytes: [UInt8] = [UInt8(ascii: "'")]
        bytes.reserveCapacity(text.count + 2)
        for byte in text {
            bytes.append(byte)
            if byte == UInt8(ascii: "'") { bytes.append(byte) }
        }
        bytes.append(UInt8(ascii: "'"))
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `X'0A1B'`.
    private static func blobLiteral(_ blob: ArraySlice<UInt8>) -> String {
        let digits = Array("0123456789ABCDEF".utf8)
        var bytes = Array("X'".utf8)
        bytes.reserveCapacity(blob.count * 2 + 3)
        for byte in blob {
            bytes.append(digits[Int(byte >> 4)])
            bytes.append(digits[Int(byte & 0x0F)])
        }
        bytes.append(UInt8(ascii: "'"))
        return String(decoding: bytes, as: UTF8.self)
    }
}
