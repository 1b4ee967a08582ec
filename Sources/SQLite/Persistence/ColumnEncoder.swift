import CSQLite

/// Where a ``PersistableRecord`` writes its column values, one per column of its
/// ``PersistableRecord/databaseColumns``, in order.
///
/// ```swift
/// func encode(to columns: inout ColumnEncoder) {
///     columns.encode(id)        // "id"
///     columns.encode(title)     // "title"
///     columns.encode(due)       // "due", a Date?
/// }
/// ```
///
/// When a record is written, the values go straight into the statement's bindings: no array
/// of values is built. Every `DatabaseValueConvertible` type, and optionals of them, can be
/// encoded; nil is NULL.
public struct ColumnEncoder {
    // Binding a record must cost no reference counting, so the fields a write binds through are
    // plain values; what collecting needs lives in `collector`, nil while binding.

    /// The statement the values are bound to; nil while collecting them.
    @usableFromInline let handle: OpaquePointer?
    /// Column position → parameter index (1-based; 0 for a column the statement does not use).
    /// Empty when column `i` binds parameter `i + 1`.
    @usableFromInline let parameters: [Int32]
    /// How many columns the statement expects values for.
    @usableFromInline let columnCount: Int
    /// How many values were written so far.
    @usableFromInline var position = 0
    /// The first binding that SQLite refused.
    @usableFromInline var bindFailure = SQLITE_OK
    /// The first value with no stored form (a `Date` past year 9999), thrown when the record
    /// finishes: `encode` does not throw, so that records written before stay source-compatible.
    @usableFromInline var conversionFailure: ValueConversionError?
    /// The layout bound to, for `Encodable` records with declared columns. Unretained: layouts
    /// live as long as the process (see ``RecordPlan``).
    @usableFromInline unowned(unsafe) let layout: RecordLayout?
    /// The values, while collecting.
    @usableFromInline let collector: ValueCollector?

    /// Binds each column value to `statement`, as `sql` numbers its parameters.
    @inlinable
    init(binding statement: Statement, sql: WriteSQL, layout: RecordLayout) {
        handle = statement.handle
        parameters = sql.parameters
        columnCount = layout.columnCount
        self.layout = layout
        collector = nil
    }

    /// Collects the values of declared columns, or while `learning`, of columns named by coding
    /// keys, expected to be `columns` as learned from earlier records.
    init(collecting columns: [String], learning: Bool) {
        handle = nil
        parameters = []
        columnCount = columns.count
        layout = nil
        collector = ValueCollector(columns: columns, learning: learning)
    }

    // MARK: Writing values

    /// Writes a 64-bit integer.
    @inlinable @inline(__always)
    public mutating func encode(_ value: Int64) {
        guard let handle else { return append(.integer(value)) }
        let index = nextParameter()
        if index != 0 { noteBind(sqlite3_bind_int64(handle, index, value)) }
    }

    /// Writes an integer.
    @inlinable @inline(__always)
    public mutating func encode(_ value: Int) {
        encode(Int64(value))
    }

    /// Writes 1 for true, 0 for false.
    @inlinable @inline(__always)
    public mutating func encode(_ value: Bool) {
        encode(Int64(value ? 1 : 0))
    }

    /// Writes a floating point number.
    @inlinable @inline(__always)
    public mutating func encode(_ value: Double) {
        guard let handle else { return append(.real(value)) }
        let index = nextParameter()
        if index != 0 { noteBind(sqlite3_bind_double(handle, index, value)) }
    }

    /// Writes text.
    @inlinable @inline(__always)
    public mutating func encode(_ value: String) {
        guard let handle else { return append(.text(value)) }
        let index = nextParameter()
        if index != 0 { noteBind(Self.bindText(value, handle, index)) }
    }

    /// Writes NULL.
    @inlinable @inline(__always)
    public mutating func encodeNull() {
        guard let handle else { return append(.null) }
        let index = nextParameter()
        if index != 0 { noteBind(sqlite3_bind_null(handle, index)) }
    }

    /// Writes a value of any storage class.
    @inlinable @inline(__always)
    public mutating func encode(_ value: DatabaseValue) {
        guard let handle else { return append(value) }
        let index = nextParameter()
        if index != 0 { noteBind(Self.bind(value, handle, index)) }
    }

    /// Writes any convertible value: dates, UUIDs, `Data`, enums with raw values, optionals.
    @inlinable @inline(__always)
    public mutating func encode(_ value: some DatabaseValueConvertible) {
        do {
            encode(try value.databaseValue)
        } catch {
            if conversionFailure == nil { conversionFailure = ValueConversionError(error, of: value) }
            encodeNull()
        }
    }

    /// Writes the integer, or NULL.
    @inlinable @inline(__always)
    public mutating func encode(_ value: Int64?) {
        if let value { encode(value) } else { encodeNull() }
    }

    /// Writes the integer, or NULL.
    @inlinable @inline(__always)
    public mutating func encode(_ value: Int?) {
        if let value { encode(Int64(value)) } else { encodeNull() }
    }

    /// Writes 1 or 0, or NULL.
    @inlinable @inline(__always)
    public mutating func encode(_ value: Bool?) {
        if let value { encode(value) } else { encodeNull() }
    }

    /// Writes the number, or NULL.
    @inlinable @inline(__always)
    public mutating func encode(_ value: Double?) {
        if let value { encode(value) } else { encodeNull() }
    }

    /// Writes the text, or NULL.
    @inlinable @inline(__always)
    public mutating func encode(_ value: String?) {
        if let value { encode(value) } else { encodeNull() }
    }

    // MARK: Binding

    /// The parameter of the next column, or 0 when the statement does not use it (or the record
    /// writes more values than it has columns, which ``finish(_:sql:)`` reports).
    @inlinable @inline(__always)
    mutating func nextParameter() -> Int32 {
        let current = position
        position = current &+ 1
        if current >= columnCount { return 0 }
        return parameters.isEmpty ? Int32(truncatingIfNeeded: current &+ 1) : parameters[current]
    }

    @inlinable @inline(__always)
    mutating func noteBind(_ code: Int32) {
        if code != SQLITE_OK && bindFailure == SQLITE_OK { bindFailure = code }
    }

    @usableFromInline
    mutating func append(_ value: DatabaseValue) {
        position += 1
        collector?.values.append(value)
    }

    @inlinable
    static func bindText(_ value: String, _ handle: OpaquePointer, _ index: Int32) -> Int32 {
        var value = value
        return value.withUTF8 { bytes in
            // An empty buffer may have no base address, and SQLite binds a NULL pointer as NULL.
            guard let base = bytes.baseAddress else { return sqlite3_bind_text(handle, index, "", 0, nil) }
            return sqlite3_bind_text64(handle, index, base, UInt64(bytes.count), SQLITE_TRANSIENT, UInt8(SQLITE_UTF8))
        }
    }

    @inlinable
    static func bind(_ value: DatabaseValue, _ handle: OpaquePointer, _ index: Int32) -> Int32 {
        switch value {
        case .null: return sqlite3_bind_null(handle, index)
        case .integer(let int): return sqlite3_bind_int64(handle, index, int)
        case .real(let double): return sqlite3_bind_double(handle, index, double)
        case .text(let text): return bindText(text, handle, index)
        case .blob(let bytes):
            if bytes.isEmpty { return sqlite3_bind_zeroblob(handle, index, 0) }
            return bytes.withUnsafeBytes { raw in
                sqlite3_bind_blob64(handle, index, raw.baseAddress, UInt64(raw.count), SQLITE_TRANSIENT)
            }
        }
    }

    // MARK: Encodable records

    /// Encodes an `Encodable` record: collected with its coding keys while learning, or put in
    /// the order of the declared columns.
    mutating func encodeEncodable<Record: Encodable>(_ record: Record, type: Record.Type) throws {
        let expected = collector?.columns ?? layout?.columns ?? []
        let encoder = RecordEncoder.take(expected: expected)
        defer { encoder.recycle() }
        try record.encode(to: encoder)
        if let problem = encoder.problem {
            throw PersistenceError.unsupportedEncoding(type: "\(Record.self)", reason: problem)
        }
        if let collector, collector.learning {
            collector.usedCodingKeys = true
            position = encoder.values.count
            collector.values = encoder.values
            collector.learnedColumns = encoder.divergedColumns
            if collector.learnedColumns == nil && position != expected.count {
                collector.learnedColumns = Array(expected.prefix(position))
            }
            return
        }
        // Declared columns: each coding key must name one of them, once.
        let names = encoder.divergedColumns ?? Array(expected.prefix(encoder.values.count))
        var ordered = [DatabaseValue?](repeating: nil, count: expected.count)
        for (name, value) in zip(names, encoder.values) {
            guard let index = RecordLayout.position(of: name, in: expected), ordered[index] == nil else {
                throw PersistenceError.codingKeysMismatch(type: "\(Record.self)", declared: expected, encoded: names)
            }
            ordered[index] = value
        }
        guard !ordered.contains(where: { $0 == nil }) else {
            throw PersistenceError.codingKeysMismatch(type: "\(Record.self)", declared: expected, encoded: names)
        }
        for value in ordered { encode(value!) }
    }

    // MARK: Finishing

    /// Throws when the record wrote the wrong number of values or a value could not be bound.
    @inlinable
    func finish(_ plan: RecordPlan, sql: WriteSQL?) throws {
        if position != columnCount || bindFailure != SQLITE_OK || conversionFailure != nil {
            try fail(plan, sql: sql)
        }
    }

    @usableFromInline
    func fail(_ plan: RecordPlan, sql: WriteSQL?) throws {
        if let conversionFailure { throw conversionFailure }
        if let collector, collector.learning { return try collector.finish(type: plan.typeName) }
        if position != columnCount {
            throw PersistenceError.columnCountMismatch(
                type: plan.typeName, columns: collector?.columns ?? layout?.columns ?? [], written: position)
        }
        if bindFailure != SQLITE_OK, let handle {
            throw SQLiteError(connection: sqlite3_db_handle(handle), code: bindFailure, sql: sql?.sql)
        }
    }
}

/// The values of a record that is not bound straight to a statement: for `save`,
/// `updateChanges`, and `Encodable` records, whose coding keys choose the layout.
@usableFromInline
final class ValueCollector {
    // A collector serves one record on one thread.
    @exclusivity(unchecked) var values: [DatabaseValue] = []
    /// The declared columns; while learning, those of the last layout learned for the type.
    let columns: [String]
    /// True when the columns come from coding keys rather than a declared list.
    let learning: Bool
    /// While learning: the coding keys, when they are not exactly ``columns``.
    @exclusivity(unchecked) var learnedColumns: [String]?
    /// True once an `Encodable` record wrote its values with their coding keys.
    @exclusivity(unchecked) var usedCodingKeys = false

    init(columns: [String], learning: Bool) {
        self.columns = columns
        self.learning = learning
        // While learning, the encoder's own array replaces this one.
        if !learning { values.reserveCapacity(columns.count) }
    }

    /// While learning, throws when values came without coding keys to name them.
    func finish(type: String) throws {
        if learning && !usedCodingKeys { throw PersistenceError.noDatabaseColumns(type: type) }
    }
}
