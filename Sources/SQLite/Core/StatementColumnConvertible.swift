import CSQLite

/// A `DatabaseValueConvertible` type that decodes straight from a column of a SQLite
/// statement's current row, without making a `DatabaseValue` first.
///
/// The package conforms `Int64`, `Int`, `Int32`, `Bool`, `Double`, `Float`, `String`,
/// `DatabaseValue` and `Optional` of any of them. A typed read of one of these from a row of a
/// SQLite statement, `let id: Int64 = try row[0]` or `try row["title"] as String`, and the
/// `Decodable` fetches of their fields, read the column with the C API, which keeps row decoding
/// close to the C API's speed. Every other type, and every read from another source, goes through
/// `init?(databaseValue:)`.
///
/// Conform a type of your own only to read a column with the C API yourself; the conversion must
/// agree with its `init?(databaseValue:)`.
public protocol StatementColumnConvertible: DatabaseValueConvertible {
    /// Decodes column `column` of a raw `sqlite3_stmt`'s current row; returns nil when the
    /// value has the wrong type, as `init?(databaseValue:)` does.
    init?(sqliteStatement statement: OpaquePointer, column: Int32)
}

extension DatabaseValue: StatementColumnConvertible {
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
}

extension Int64: StatementColumnConvertible {
    @inlinable @inline(__always)
    public init?(sqliteStatement statement: OpaquePointer, column: Int32) {
        // One column call, then two plain reads of the value: a type check that costs less than
        // a second `sqlite3_column_*` call. The value is only read on the connection's thread.
        guard let value = sqlite3_column_value(statement, column) else { return nil }
        switch sqlite3_value_type(value) {
        case SQLITE_INTEGER: self = sqlite3_value_int64(value)
        case SQLITE_FLOAT:
            guard let exact = Int64(exactly: sqlite3_value_double(value)) else { return nil }
            self = exact
        default: return nil
        }
    }
}

extension Int: StatementColumnConvertible {
    @inlinable @inline(__always)
    public init?(sqliteStatement statement: OpaquePointer, column: Int32) {
        guard let value = Int64(sqliteStatement: statement, column: column), let exact = Int(exactly: value) else {
            return nil
        }
        self = exact
    }
}

extension Int32: StatementColumnConvertible {
    @inlinable @inline(__always)
    public init?(sqliteStatement statement: OpaquePointer, column: Int32) {
        guard let value = Int64(sqliteStatement: statement, column: column), let exact = Int32(exactly: value) else {
            return nil
        }
        self = exact
    }
}

extension Bool: StatementColumnConvertible {
    @inlinable @inline(__always)
    public init?(sqliteStatement statement: OpaquePointer, column: Int32) {
        guard let value = sqlite3_column_value(statement, column) else { return nil }
        switch sqlite3_value_type(value) {
        case SQLITE_INTEGER: self = sqlite3_value_int64(value) != 0
        case SQLITE_FLOAT: self = sqlite3_value_double(value) != 0
        default: return nil
        }
    }
}

extension Double: StatementColumnConvertible {
    @inlinable @inline(__always)
    public init?(sqliteStatement statement: OpaquePointer, column: Int32) {
        guard let value = sqlite3_column_value(statement, column) else { return nil }
        switch sqlite3_value_type(value) {
        case SQLITE_FLOAT, SQLITE_INTEGER: self = sqlite3_value_double(value)
        default: return nil
        }
    }
}

extension Float: StatementColumnConvertible {
    @inlinable @inline(__always)
    public init?(sqliteStatement statement: OpaquePointer, column: Int32) {
        guard let value = Double(sqliteStatement: statement, column: column) else { return nil }
        self = Float(value)
    }
}

extension String: StatementColumnConvertible {
    @inlinable @inline(__always)
    public init?(sqliteStatement statement: OpaquePointer, column: Int32) {
        guard let value = sqlite3_column_value(statement, column), sqlite3_value_type(value) == SQLITE_TEXT else {
            return nil
        }
        guard let text = sqlite3_value_text(value) else {
            self = ""
            return
        }
        let count = Int(sqlite3_value_bytes(value))
        self = String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }
}

extension Optional: StatementColumnConvertible where Wrapped: StatementColumnConvertible {
    /// NULL decodes as `nil`; any other value must decode as `Wrapped`.
    @inlinable @inline(__always)
    public init?(sqliteStatement statement: OpaquePointer, column: Int32) {
        if let value = sqlite3_column_value(statement, column), sqlite3_value_type(value) == SQLITE_NULL {
            self = .none
            return
        }
        guard let wrapped = Wrapped(sqliteStatement: statement, column: column) else { return nil }
        self = .some(wrapped)
    }
}

// The typed reads that reach the C API. They are more specific than `BorrowedRow`'s own, which
// ask the row's source for a `DatabaseValue`, so a read of a built-in type picks them wherever
// this module is imported.
extension BorrowedRow {
    /// The value at `index`, converted to `T`: read straight from the statement when the row is
    /// one of a SQLite statement's.
    ///
    /// Throws `RowDecodingError` when the row has no column `index`, when the value is NULL
    /// and `T` is not optional, or when it has a type `T` cannot represent.
    @inlinable
    public subscript<T: StatementColumnConvertible>(_ index: Int) -> T {
        @inline(__always) get throws {
            // One unsigned comparison rejects negative indexes too.
            guard UInt(bitPattern: index) < UInt(bitPattern: columnCount) else {
                throw indexOutOfRange(T.self, index: index)
            }
            checkCurrent()
            if let handle {
                if let decoded = T(sqliteStatement: handle, column: Int32(truncatingIfNeeded: index)) { return decoded }
            } else if let decoded = T(databaseValue: owned!.values[index]) {
                return decoded
            }
            throw decodingError(T.self, index: index, value: value(at: index))
        }
    }

    /// The value of the named column, converted to `T`: read straight from the statement when
    /// the row is one of a SQLite statement's.
    ///
    /// Throws `RowDecodingError` when there is no such column, or the value does not convert.
    @inlinable
    public subscript<T: StatementColumnConvertible>(_ name: String) -> T {
        get throws {
            guard let index = index(ofColumn: name) else { throw columnNotFound(T.self, name: name) }
            return try self[index] as T
        }
    }
}

extension BorrowedRow {
    /// The row decoded as `T`, the way every fetch of rows decodes them.
    ///
    /// A single value of a common built-in type reads its column straight from the statement:
    /// its `init(row:)`, which `SQLCore` gives every `DatabaseValueConvertible` type, can only
    /// convert a `DatabaseValue` read through the row's source. In a fetch specialized for `T`
    /// the type comparisons fold away.
    @inlinable @inline(__always)
    package func decode<T: FetchableRow>(_ type: T.Type) throws -> T {
        if T.self == Int.self { return unsafeBitCast(try self[0] as Int, to: T.self) }
        if T.self == Int64.self { return unsafeBitCast(try self[0] as Int64, to: T.self) }
        if T.self == String.self { return unsafeBitCast(try self[0] as String, to: T.self) }
        if T.self == Double.self { return unsafeBitCast(try self[0] as Double, to: T.self) }
        if T.self == Bool.self { return unsafeBitCast(try self[0] as Bool, to: T.self) }
        return try T(row: self)
    }
}
