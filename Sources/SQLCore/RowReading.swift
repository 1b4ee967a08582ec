/// What ``Row`` and ``BorrowedRow`` have in common, so that their public reading API is written
/// once where it does not depend on where the values live.
///
/// Internal on purpose: the two types share behaviour, not a type that callers could store one
/// in place of the other, since a borrowed row must not outlive its call.
@usableFromInline
package protocol RowReading {
    var count: Int { get }
    var columnNames: [String] { get }
    func value(at index: Int) -> SQLiteValue
    func index(ofColumn name: String) -> Int?
    /// The SQL of the statement the row was read from, for error messages.
    var sql: String? { get }
}

extension RowReading {
    func namedValue(_ name: String) -> SQLiteValue? {
        index(ofColumn: name).map { value(at: $0) }
    }

    var textDescription: String {
        "[" + zip(columnNames, (0..<count).map { value(at: $0) }).map { "\($0):\($1)" }.joined(separator: " ") + "]"
    }

    // The error makers are kept out of line, so the typed subscripts that throw them stay small.

    @usableFromInline @inline(never)
    package func decodingError(_ type: Any.Type, index: Int, value: SQLiteValue) -> RowDecodingError {
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
