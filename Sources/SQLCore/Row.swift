/// One row of a result that owns its column names and values, read by index or by name.
///
/// Typed access throws a ``RowDecodingError`` that names the column when the value does not fit:
///
/// ```swift
/// let title: String = try row["title"]
/// let due: Date? = try row[4]
/// let raw = row.value(at: 0)        // DatabaseValue
/// ```
///
/// `fetchAll`, `fetchOne` and cursors of `Row` return these. A row owns plain values and nothing
/// of the connection, so it is `Sendable` and may be kept, compared and sent to other tasks. The
/// row handed to ``FetchableRow/init(row:)`` is a ``BorrowedRow`` instead, which reads straight
/// from the statement; ``BorrowedRow/copy()`` turns it into a `Row`.
public struct Row: Sendable, Hashable {
    /// The column names, in order.
    public let columnNames: [String]
    /// All values, in column order.
    public let values: [DatabaseValue]

    /// A row of these names and values, for tests and for decoders written by hand.
    public init(columnNames: [String], values: [DatabaseValue]) {
        precondition(columnNames.count == values.count, "a row needs as many names as values")
        self.columnNames = columnNames
        self.values = values
    }

    /// How many columns the row has.
    @inlinable
    public var count: Int { values.count }

    /// The value at `index`. Traps when `index` is out of range, as arrays do.
    @inlinable
    public func value(at index: Int) -> DatabaseValue {
        values[index]
    }

    /// The index of the named column, matched exactly first and then ignoring the case of ASCII
    /// letters, as SQLite matches names.
    public func index(ofColumn name: String) -> Int? {
        columnNames.firstIndex { $0.hasSameBytes(as: name) } ?? columnNames.firstIndex { $0.sqliteNameMatches(name) }
    }
}

extension Row: RowReading {
    /// An owned row no longer knows the statement it came from.
    @_spi(RowSQL) public var sql: String? { nil }
}

extension Row: CustomStringConvertible {
    /// `[id:1 title:'milk' done:0]`
    public var description: String { textDescription }
}

extension Row: FetchableRow {
    /// Copies the borrowed row, so that `fetchAll(Row.self, …)` returns rows that can be kept.
    public init(row: BorrowedRow) throws {
        self = row.copy()
    }
}
