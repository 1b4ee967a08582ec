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
    // A struct of plain fields rather than an enum: reading an enum payload copies (and
    // retains) it on every column access, which costs more than the column read itself.

    /// The statement whose current row this is, for rows handed to `init(row:)`; nil for rows
    /// that own their values. Held for its lifetime; column reads go through `handle` and
    /// `generationPointer`, which are plain pointers and cost no reference counting.
    @usableFromInline let statement: Statement?
    @usableFromInline let handle: OpaquePointer?
    @usableFromInline let generationPointer: UnsafeMutablePointer<UInt64>?
    @usableFromInline let liveColumnCount: Int
    /// The statement's step generation for the row this stands on. Fetch loops move one row
    /// value along the statement by updating it, which spares a reference count per row.
    @usableFromInline var generation: UInt64
    /// Names and values, for rows that own them.
    @usableFromInline let owned: OwnedValues?

    @usableFromInline
    final class OwnedValues: Sendable {
        let names: [String]
        @usableFromInline let values: [SQLiteValue]
        init(names: [String], values: [SQLiteValue]) {
            self.names = names
            self.values = values
        }
    }

    @usableFromInline var ownedValues: [SQLiteValue] { owned?.values ?? [] }
    var ownedNames: [String] { owned?.names ?? [] }

    /// A row that owns its values.
    public init(columnNames: [String], values: [SQLiteValue]) {
        precondition(columnNames.count == values.count, "a row needs as many names as values")
        statement = nil
        handle = nil
        generationPointer = nil
        liveColumnCount = 0
        generation = 0
        owned = OwnedValues(names: columnNames, values: values)
    }

    @inlinable
    init(statement: Statement) {
        self.statement = statement
        handle = statement.handle
        generationPointer = statement.generationPointer
        liveColumnCount = statement.columnCount
        generation = statement.generation
        owned = nil
    }

    /// Moves the row to the statement's current row.
    @inlinable
    mutating func advance() {
        if let generationPointer { generation = generationPointer.pointee }
    }

    /// Traps when the statement has stepped past this row: reading it now would return another
    /// row's values.
    @inlinable
    func checkCurrent(_ generationPointer: UnsafeMutablePointer<UInt64>) {
        precondition(
            generationPointer.pointee == generation,
            "A Row read from a statement was used after the fetch moved on; keep rows with row.copy()")
    }

    /// How many columns the row has.
    @inlinable
    public var count: Int {
        handle == nil ? ownedValues.count : liveColumnCount
    }

    /// The column names, in order.
    public var columnNames: [String] {
        statement?.columnNames ?? ownedNames
    }

    /// All values, in column order.
    public var values: [SQLiteValue] {
        if statement == nil { return ownedValues }
        return (0..<count).map { value(at: $0) }
    }

    /// A row that owns its values, safe to keep after the fetch that produced it moves on.
    public func copy() -> Row {
        guard let statement, let generationPointer else { return self }
        checkCurrent(generationPointer)
        return Row(columnNames: statement.columnNames, values: values)
    }

    /// The value at `index`. Traps when `index` is out of range, as arrays do.
    @inlinable
    public func value(at index: Int) -> SQLiteValue {
        guard let handle, let generationPointer else { return ownedValues[index] }
        checkCurrent(generationPointer)
        precondition(index >= 0 && index < liveColumnCount, "column index \(index) out of range")
        return SQLiteValue(sqliteStatement: handle, column: Int32(truncatingIfNeeded: index))
    }

    /// The index of the named column, matched exactly first and then ignoring case as SQL does.
    public func index(ofColumn name: String) -> Int? {
        if let statement { return statement.columnIndex(named: name) }
        if let index = ownedNames.firstIndex(of: name) { return index }
        let lowered = name.lowercased()
        return ownedNames.firstIndex { $0.lowercased() == lowered }
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
    /// Throws ``RowDecodingError`` when the row has no column `index`, when the value is NULL
    /// and `T` is not optional, or when it has a type `T` cannot represent.
    @inlinable
    public subscript<T: SQLiteValueConvertible>(_ index: Int) -> T {
        @inline(__always) get throws {
            if let handle, let generationPointer {
                checkCurrent(generationPointer)
                // One unsigned comparison rejects negative indexes too.
                guard UInt(bitPattern: index) < UInt(bitPattern: liveColumnCount) else {
                    throw indexOutOfRange(T.self, index: index)
                }
                if let decoded = T(sqliteStatement: handle, column: Int32(truncatingIfNeeded: index)) { return decoded }
            } else {
                let values = ownedValues
                guard UInt(bitPattern: index) < UInt(bitPattern: values.count) else {
                    throw indexOutOfRange(T.self, index: index)
                }
                if let decoded = T(sqliteValue: values[index]) { return decoded }
            }
            throw decodingError(T.self, index: index, value: value(at: index))
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
    var sql: String? { statement?.sql }

    @usableFromInline
    func decodingError(_ type: Any.Type, index: Int, value: SQLiteValue) -> RowDecodingError {
        RowDecodingError(
            column: index >= 0 && index < count ? columnNames[index] : "#\(index)", index: index,
            expectedType: "\(type)", reason: value.isNull ? .unexpectedNull : .typeMismatch(found: value), sql: sql)
    }

    // Kept out of line, so the subscript stays small.
    @usableFromInline @inline(never)
    func indexOutOfRange(_ type: Any.Type, index: Int) -> RowDecodingError {
        RowDecodingError(
            column: "#\(index)", index: index, expectedType: "\(type)", reason: .indexOutOfRange(columnCount: count),
            sql: sql)
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
