#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A Swift type that converts to and from a single ``DatabaseValue``.
///
/// The package conforms `Bool`, the integer types, `Double`, `Float`, `String`, `[UInt8]`, `Data`,
/// `Date`, `UUID`, `DatabaseValue` itself and `Optional` of any of them. Conform your own types to
/// store them in a column:
///
/// ```swift
/// enum Priority: Int, DatabaseValueConvertible { case low, high }
/// ```
///
/// `RawRepresentable` types whose raw value is convertible get the conformance's requirements
/// for free.
///
/// A convertible type is also a ``FetchableRow`` that decodes the first column, so the same
/// fetches read single values: `try db.fetchAll(String.self, "SELECT title FROM items")`, and
/// `fetchOne` gives nil when there is no row or the value is NULL.
public protocol DatabaseValueConvertible: FetchableRow, Sendable {
    /// The value to bind. Throws when the value has no stored form (a `Date` outside the years
    /// 0000 through 9999 throws ``ValueConversionError``).
    var databaseValue: DatabaseValue { get throws }
    /// Decodes from a stored value; returns nil when the value has the wrong type.
    init?(databaseValue: DatabaseValue)
}

extension DatabaseValueConvertible {
    /// Decodes the first column. NULL fails unless the type is optional.
    @inlinable
    public init(row: BorrowedRow) throws {
        self = try row[0]
    }

    /// The first column, or nil when it is NULL.
    @inlinable
    public init?(firstRow row: BorrowedRow) throws {
        guard let value = try row.firstColumnUnlessNull(Self.self) else { return nil }
        self = value
    }
}

// A convertible type that is `Decodable` too (`Int`, `String`, `Date`…) decodes the first column
// rather than the row's columns named by its coding keys: this says so where the two defaults meet.
extension DatabaseValueConvertible where Self: Decodable {
    /// Decodes the first column. NULL fails unless the type is optional.
    @inlinable
    public init(row: BorrowedRow) throws {
        self = try row[0]
    }
}

extension DatabaseValue: DatabaseValueConvertible {
    @inlinable public var databaseValue: DatabaseValue { self }
    @inlinable public init?(databaseValue: DatabaseValue) { self = databaseValue }
}

extension Int64: DatabaseValueConvertible {
    @inlinable public var databaseValue: DatabaseValue { .integer(self) }
    @inlinable public init?(databaseValue: DatabaseValue) {
        switch databaseValue {
        case .integer(let value): self = value
        case .real(let value):
            guard let exact = Int64(exactly: value) else { return nil }
            self = exact
        default: return nil
        }
    }
}

extension Int: DatabaseValueConvertible {
    @inlinable public var databaseValue: DatabaseValue { .integer(Int64(self)) }
    @inlinable public init?(databaseValue: DatabaseValue) {
        guard let value = Int64(databaseValue: databaseValue), let exact = Int(exactly: value) else { return nil }
        self = exact
    }
}

extension Int32: DatabaseValueConvertible {
    @inlinable public var databaseValue: DatabaseValue { .integer(Int64(self)) }
    @inlinable public init?(databaseValue: DatabaseValue) {
        guard let value = Int64(databaseValue: databaseValue), let exact = Int32(exactly: value) else { return nil }
        self = exact
    }
}

extension Bool: DatabaseValueConvertible {
    @inlinable public var databaseValue: DatabaseValue { .integer(self ? 1 : 0) }
    @inlinable public init?(databaseValue: DatabaseValue) {
        switch databaseValue {
        case .integer(let value): self = value != 0
        case .real(let value): self = value != 0
        default: return nil
        }
    }
}

extension Double: DatabaseValueConvertible {
    /// The number as a REAL. NaN binds as NULL, as SQLite binds it (and PostgreSQL's binding
    /// does the same, for the same rows): a filter comparing with NaN matches nothing, and a NaN
    /// written to a NOT NULL column fails with a `ConstraintViolation` that says so.
    @inlinable public var databaseValue: DatabaseValue { .real(self) }
    @inlinable public init?(databaseValue: DatabaseValue) {
        switch databaseValue {
        case .real(let value): self = value
        case .integer(let value): self = Double(value)
        default: return nil
        }
    }
}

extension Float: DatabaseValueConvertible {
    @inlinable public var databaseValue: DatabaseValue { .real(Double(self)) }
    @inlinable public init?(databaseValue: DatabaseValue) {
        guard let value = Double(databaseValue: databaseValue) else { return nil }
        self = Float(value)
    }
}

extension String: DatabaseValueConvertible {
    @inlinable public var databaseValue: DatabaseValue { .text(self) }
    @inlinable public init?(databaseValue: DatabaseValue) {
        guard case .text(let value) = databaseValue else { return nil }
        self = value
    }
}

extension Array: FetchableRow where Element == UInt8 {}

extension Array: DatabaseValueConvertible where Element == UInt8 {
    @inlinable public var databaseValue: DatabaseValue { .blob(self) }
    @inlinable public init?(databaseValue: DatabaseValue) {
        switch databaseValue {
        case .blob(let bytes): self = bytes
        case .text(let text): self = Array(text.utf8)
        default: return nil
        }
    }
}

extension Data: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .blob([UInt8](self)) }
    public init?(databaseValue: DatabaseValue) {
        guard let bytes = [UInt8](databaseValue: databaseValue) else { return nil }
        self = Data(bytes)
    }
}

extension UUID: DatabaseValueConvertible {
    /// UUIDs are stored as their canonical uppercase text, which is readable in any SQLite tool.
    public var databaseValue: DatabaseValue { .text(uuidString) }
    /// Accepts the text form (any case) and the 16-byte blob form.
    public init?(databaseValue: DatabaseValue) {
        switch databaseValue {
        case .text(let text):
            guard let uuid = UUID(uuidString: text) else { return nil }
            self = uuid
        case .blob(let bytes) where bytes.count == 16:
            self = UUID(
                uuid: (
                    bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                    bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
                ))
        default: return nil
        }
    }
}

extension Date: DatabaseValueConvertible {
    /// Dates are stored as TEXT `yyyy-MM-dd HH:mm:ss.SSS` in UTC: SQLite's own format, which sorts
    /// as time and works with `date()`, `datetime()` and `strftime()`. It holds the years 0000
    /// through 9999, rounded to the millisecond; any other date, and one that is not finite,
    /// throws ``ValueConversionError``.
    public var databaseValue: DatabaseValue {
        get throws { .text(try SQLiteDateFormat.string(from: self)) }
    }
    /// Accepts SQLite's format, ISO-8601 (`T` separator, `Z` or `±HH:MM` offsets, optional
    /// fractions), a bare `yyyy-MM-dd`, and numbers as Unix time in seconds.
    public init?(databaseValue: DatabaseValue) {
        switch databaseValue {
        case .text(let text):
            guard let date = SQLiteDateFormat.date(from: text) else { return nil }
            self = date
        case .integer(let seconds): self = Date(timeIntervalSince1970: TimeInterval(seconds))
        case .real(let seconds): self = Date(timeIntervalSince1970: seconds)
        default: return nil
        }
    }
}

extension Optional: FetchableRow where Wrapped: DatabaseValueConvertible {}

extension Optional: DatabaseValueConvertible where Wrapped: DatabaseValueConvertible {
    @inlinable public var databaseValue: DatabaseValue {
        get throws {
            switch self {
            case .none: .null
            case .some(let wrapped): try wrapped.databaseValue
            }
        }
    }
    /// NULL decodes as `nil`; any other value must decode as `Wrapped`.
    @inlinable public init?(databaseValue: DatabaseValue) {
        if case .null = databaseValue {
            self = .none
            return
        }
        guard let wrapped = Wrapped(databaseValue: databaseValue) else { return nil }
        self = .some(wrapped)
    }
}

extension DatabaseValueConvertible where Self: RawRepresentable, RawValue: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue {
        get throws { try rawValue.databaseValue }
    }
    public init?(databaseValue: DatabaseValue) {
        guard let raw = RawValue(databaseValue: databaseValue) else { return nil }
        self.init(rawValue: raw)
    }
}
