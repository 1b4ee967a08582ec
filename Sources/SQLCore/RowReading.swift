/// What ``Row`` and ``BorrowedRow`` have in common: reading a column by index or by name.
///
/// The named-column API, ``value(named:)``, ``hasColumn(_:)`` and the typed subscript by name, is
/// written once here for both, and code may read either through `some RowReading`. Only those two
/// types conform (the SQL a row came from, which decoding errors name, is a requirement of this
/// module's own). A borrowed row stays valid only during the call it is handed to, whatever type
/// it is read through.
public protocol RowReading {
    /// How many columns the row has.
    var count: Int { get }
    /// The column names, in order.
    var columnNames: [String] { get }
    /// The value at `index`. Traps when `index` is out of range, as arrays do.
    func value(at index: Int) -> DatabaseValue
    /// The index of the named column, matched exactly first and then ignoring the case of ASCII
    /// letters, as SQLite matches names.
    func index(ofColumn name: String) -> Int?
    /// The value at `index`, converted to `T`.
    ///
    /// Throws ``RowDecodingError`` when the row has no column `index`, when the value is NULL
    /// and `T` is not optional, or when it has a type `T` cannot represent.
    subscript<T: DatabaseValueConvertible>(_ index: Int) -> T { get throws }
    /// The SQL of the statement the row was read from, for error messages. Not part of the
    /// module's interface.
    @_spi(RowSQL) var sql: String? { get }
}

extension RowReading {
    /// The value at `index`, converted to `T`.
    ///
    /// Throws ``RowDecodingError`` when the row has no column `index`, when the value is NULL
    /// and `T` is not optional, or when it has a type `T` cannot represent.
    ///
    /// `Row` and `BorrowedRow` share this conversion. For a row of a SQLite statement, the
    /// `SQLite` module adds a more specific read, which the built-in types take: it reads their
    /// column straight from the statement.
    @inlinable
    public subscript<T: DatabaseValueConvertible>(_ index: Int) -> T {
        @inline(__always) get throws {
            // One unsigned comparison rejects negative indexes too.
            guard UInt(bitPattern: index) < UInt(bitPattern: count) else {
                throw indexOutOfRange(T.self, index: index)
            }
            let value = value(at: index)
            if let decoded = T(databaseValue: value) { return decoded }
            throw decodingError(T.self, index: index, value: value)
        }
    }

    /// The value of the named column, or nil when the row has no such column.
    public func value(named name: String) -> DatabaseValue? {
        index(ofColumn: name).map { value(at: $0) }
    }

    /// True when the row has a column with this name.
    public func hasColumn(_ name: String) -> Bool {
        index(ofColumn: name) != nil
    }

    /// The value of the named column, converted to `T`.
    ///
    /// Throws ``RowDecodingError`` when there is no such column, or the value does not convert.
    @inlinable
    public subscript<T: DatabaseValueConvertible>(_ name: String) -> T {
        get throws {
            guard let index = index(ofColumn: name) else { throw columnNotFound(T.self, name: name) }
            return try self[index]
        }
    }

    var textDescription: String {
        "[" + zip(columnNames, (0..<count).map { value(at: $0) }).map { "\($0):\($1)" }.joined(separator: " ") + "]"
    }

    // The error makers are kept out of line, so the typed subscripts that throw them stay small.

    @usableFromInline @inline(never)
    package func decodingError(_ type: Any.Type, index: Int, value: DatabaseValue) -> RowDecodingError {
        RowDecodingError(
            column: index >= 0 && index < count ? columnNames[index] : "#\(index)", index: index,
            expectedType: "\(type)", reason: value.isNull ? .unexpectedNull : .typeMismatch(found: value), sql: sql)
    }

    @usableFromInline @inline(never)
    package func indexOutOfRange(_ type: Any.Type, index: Int) -> RowDecodingError {
        RowDecodingError(
            column: "#\(index)", index: index, expectedType: "\(type)", reason: .indexOutOfRange(columnCount: count),
            sql: sql)
    }

    @usableFromInline @inline(never)
    package func columnNotFound(_ type: Any.Type, name: String) -> RowDecodingError {
        RowDecodingError(
            column: name, index: nil, expectedType: "\(type)", reason: .columnNotFound(available: columnNames),
            sql: sql)
    }
}
