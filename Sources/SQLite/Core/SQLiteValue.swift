import CSQLite
import Foundation

/// A value stored in, or bound to, SQLite: one of its five storage classes.
///
/// Literals convert directly, so argument arrays read naturally:
///
/// ```swift
/// try db.execute("INSERT INTO items(title, done, note) VALUES (?, ?, ?)", ["milk", false, nil])
/// ```
///
/// Any supported Swift value converts with ``init(_:)``: `SQLiteValue(Date())`.
public enum SQLiteValue: Hashable, Sendable {
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

    /// Converts any supported Swift value (Bool, Int, Double, String, Date, UUID, Data, Optionals…).
    @inlinable
    public init(_ value: some SQLiteValueConvertible) {
        self = value.sqliteValue
    }

    /// Reads column `column` of a raw `sqlite3_stmt`'s current row.
    @inlinable
    public init(sqliteStatement statement: OpaquePointer, column: Int32) {
        switch sqlite3_column_type(statement, column) {
        case SQLITE_INTEGER:
            self = .integer(sqlite3_column_int64(statement, column))
        case SQLITE_FLOAT:
            self = .real(sqlite3_column_double(statement, column))
        case SQLITE_TEXT:
            guard let text = sqlite3_column_text(statement, column) else {
                self = .text("")
                return
            }
            let count = Int(sqlite3_column_bytes(statement, column))
            self = .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(statement, column))
            guard count > 0, let blob = sqlite3_column_blob(statement, column) else {
                self = .blob([])
                return
            }
            self = .blob(Array(UnsafeRawBufferPointer(start: blob, count: count)))
        default:
            self = .null
        }
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

extension SQLiteValue: ExpressibleByNilLiteral {
    /// `nil` is ``null``.
    @inlinable public init(nilLiteral: ()) { self = .null }
}

extension SQLiteValue: ExpressibleByIntegerLiteral {
    /// An integer literal is an ``integer(_:)``.
    @inlinable public init(integerLiteral value: Int64) { self = .integer(value) }
}

extension SQLiteValue: ExpressibleByFloatLiteral {
    /// A floating-point literal is a ``real(_:)``.
    @inlinable public init(floatLiteral value: Double) { self = .real(value) }
}

extension SQLiteValue: ExpressibleByStringLiteral {
    /// A string literal is a ``text(_:)``.
    @inlinable public init(stringLiteral value: String) { self = .text(value) }
}

extension SQLiteValue: ExpressibleByBooleanLiteral {
    /// `true` and `false` are the integers 1 and 0, as SQLite stores booleans.
    @inlinable public init(booleanLiteral value: Bool) { self = .integer(value ? 1 : 0) }
}

extension SQLiteValue: CustomStringConvertible {
    /// A SQL-literal-like rendering, for logs and `--explain` output. Never used to build SQL.
    public var description: String {
        switch self {
        case .null: return "NULL"
        case .integer(let value): return String(value)
        case .real(let value): return String(value)
        case .text(let value): return "'" + value.replacingOccurrences(of: "'", with: "''") + "'"
        case .blob(let bytes):
            let hex = bytes.map { byte in
                let digits = String(byte, radix: 16, uppercase: true)
                return digits.count == 1 ? "0" + digits : digits
            }
            return "X'" + hex.joined() + "'"
        }
    }
}
