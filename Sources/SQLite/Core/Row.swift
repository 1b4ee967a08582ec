import CSQLite

/// One row of a result: column names and values, read by index or by name.
///
/// Typed access throws a ``RowDecodingError`` that names the column when the value does not fit:
///
/// ```swift
/// let title: String = try row["title"]
/// let due: Date? = try row[4]
/// let raw = row.value(at: 0)        // SQLiteValue
/// ```
///
/// Rows returned by `fetchAll` / `fetchOne` own their values. The row handed to
/// ``FetchableRow/init(row:)`` reads straight from the statement, which is what makes hand-written
/// decoding as fast as the C API; it is valid only during that call. Keep it with ``copy()``.
public struct Row {
    @usableFromInline
    enum Storage {
        case values(names: [String], values: [SQLiteValue])
        /// A view of a statement's current row, tagged with the statement's step generation.
        case statement(Statement, generation: UInt64)
    }

    @usableFromInline
    var storage: Storage

    /// A row that owns its values.
    public init(columnNames: [String], values: [SQLiteValue]) {
        precondition(columnNames.count == values.count, "a row needs as many names as values")
        storage = .values(names: columnNames, values: values)
    }

    @inlinable
    init(statement: Statement) {
        storage = .statement(statement, generation: statement.generation)
    }

    /// How many columns the row has.
    @inlinable
    public var count: Int {
        switch storage {
        case .values(_, let values): values.count
        case .statement(let statement, _): statement.columnCount
        }
    }

    /// The column names, in order.
    public var columnNames: [String] {
        switch storage {
        case .values(let names, _): names
        case .statement(let statement, _): statement.columnNames
        }
    }

    /// All values, in column order.
    public var values: [SQLiteValue] {
        (0..<count).map { value(at: $0) }
    }

    /// A row that owns its values, safe to keep after the fetch that produced it moves on.
    public func copy() -> Row {
        switch storage {
        case .values: self
        case .statement(let statement, _): Row(columnNames: statement.columnNames, values: values)
        }
    }

    /// The value at `index`. Traps when `index` is out of range, as arrays do.
    @inlinable
    public func value(at index: Int) -> SQLiteValue {
        switch storage {
        case .values(_, let values):
            return values[index]
        case .statement(let statement, let generation):
            precondition(
                statement.generation == generation,
                "A Row read from a statement was used after the fetch moved on; keep rows with row.copy()")
            precondition(index >= 0 && index < statement.columnCount, "column index \(index) out of range")
            return statement.value(at: index)
        }
    }

    /// The index of the named column, matched exactly first and then ignoring case as SQL does.
    public func index(ofColumn name: String) -> Int? {
        switch storage {
        case .values(let names, _):
            if let index = names.firstIndex(of: name) { return index }
            let lowered = name.lowercased()
            return names.firstIndex { $0.lowercased() == lowered }
        case .statement(let statement, _):
            return statement.columnIndex(named: name)
        }
    }

    /// The value of the named column, or nil when the row has no such column.
    public func value(named name: String) -> SQLiteValue? {
        index(ofColumn: name).map { value(at: $0) }
    }

    /// True when the row has a column with this name.
    public func hasColumn(_ name: String) -> Bool {
        index(ofColumn: name) != nil
    }

    /// The value at `index`, converted to `T`.
    ///
    /// Throws ``RowDecodingError`` when the value is NULL and `T` is not optional, or when it
    /// has a type `T` cannot represent.
    @inlinable
    public subscript<T: SQLiteValueConvertible>(_ index: Int) -> T {
        get throws {
            let value = value(at: index)
            if let decoded = T(sqliteValue: value) { return decoded }
            throw decodingError(T.self, index: index, value: value)
        }
    }

    /// The value of the named column, converted to `T`.
    ///
    /// Throws ``RowDecodingError`` when there is no such column, or the value does not convert.
    @inlinable
    public subscript<T: SQLiteValueConvertible>(_ name: String) -> T {
        get throws {
            guard let index = index(ofColumn: name) else {
                throw RowDecodingError(
                    column: name, index: nil, expectedType: "\(T.self)",
                    reason: .columnNotFound(available: columnNames), sql: sql)
            }
            return try self[index]
        }
    }

    @usableFromInline
    var sql: String? {
        if case .statement(let statement, _) = storage { return statement.sql }
        return nil
    }

    @usableFromInline
    func decodingError(_ type: Any.Type, index: Int, value: SQLiteValue) -> RowDecodingError {
        RowDecodingError(
            column: index < count ? columnNames[index] : "#\(index)", index: index, expectedType: "\(type)",
            reason: value.isNull ? .unexpectedNull : .typeMismatch(found: value), sql: sql)
    }
}

// A materialized row holds only Sendable values. A statement-backed row is documented as valid
// only inside the synchronous `init(row:)` call on the connection's thread, and every read checks
// the statement's generation, so it cannot silently observe another row; rows that leave that
// call go through `copy()`, as `fetchAll` of `Row` does.
extension Row: @unchecked Sendable {}

extension Row: Hashable {
    public static func == (lhs: Row, rhs: Row) -> Bool {
        lhs.columnNames == rhs.columnNames && lhs.values == rhs.values
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(columnNames)
        hasher.combine(values)
    }
}

extension Row: CustomStringConvertible {
    /// `[id:1 title:'milk' done:0]`
    public var description: String {
        "[" + zip(columnNames, values).map { "\($0):\($1)" }.joined(separator: " ") + "]"
    }
}

extension Row: FetchableRow {
    /// Copies the row so it can be kept.
    public init(row: Row) throws {
        self = row.copy()
    }
}
