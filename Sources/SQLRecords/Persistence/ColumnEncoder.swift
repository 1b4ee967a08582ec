import QueryBuilder
import SQLCore

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
    @usableFromInline package let handle: OpaquePointer?
    /// How the driver binds to `handle`.
    @usableFromInline let binder: ParameterBinder
    /// Column position → parameter index (1-based; 0 for a column the statement does not use).
    /// Empty when column `i` binds parameter `i + 1`.
    @usableFromInline let parameters: [Int32]
    /// How many columns the statement expects values for.
    @usableFromInline let columnCount: Int
    /// How many values were written so far.
    @usableFromInline var position = 0
    /// The driver's code for the first binding it refused; 0 while none was.
    @usableFromInline package var bindFailure: Int32 = 0
    /// The first value with no stored form (a `Date` past year 9999), thrown when the record
    /// finishes: `encode` does not throw, so that records written before stay source-compatible.
    @usableFromInline var conversionFailure: ValueConversionError?
    /// The layout bound to, for `Encodable` records with declared columns. Unretained: layouts
    /// live as long as the process (see ``RecordPlan``).
    @usableFromInline unowned(unsafe) let layout: RecordLayout?
    /// The values, while collecting.
    @usableFromInline let collector: ValueCollector?

    /// Binds each column value to the prepared statement `handle` through `binder`, as `sql`
    /// numbers its parameters.
    @inlinable
    package init(binding handle: OpaquePointer, binder: ParameterBinder, sql: WriteSQL, layout: RecordLayout) {
        self.handle = handle
        self.binder = binder
        parameters = sql.parameters
        columnCount = layout.columnCount
        self.layout = layout
        collector = nil
    }

    /// Collects the values of declared columns, or while `learning`, of columns named by coding
    /// keys, expected to be `columns` as learned from earlier records.
    init(collecting columns: [String], learning: Bool) {
        handle = nil
        binder = .none
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
        if index != 0 { noteBind(binder.int64(handle, index, value)) }
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
        if index != 0 { noteBind(binder.double(handle, index, value)) }
    }

    /// Writes text.
    @inlinable @inline(__always)
    public mutating func encode(_ value: String) {
        guard let handle else { return append(.text(value)) }
        let index = nextParameter()
        if index != 0 { noteBind(binder.bindText(value, handle, index)) }
    }

    /// Writes NULL.
    @inlinable @inline(__always)
    public mutating func encodeNull() {
        guard let handle else { return append(.null) }
        let index = nextParameter()
        if index != 0 { noteBind(binder.null(handle, index)) }
    }

    /// Writes a value of any storage class.
    @inlinable @inline(__always)
    public mutating func encode(_ value: DatabaseValue) {
        guard let handle else { return append(value) }
        let index = nextParameter()
        if index != 0 { noteBind(binder.bind(value, handle, index)) }
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
        if code != 0 && bindFailure == 0 { bindFailure = code }
    }

    @usableFromInline
    mutating func append(_ value: DatabaseValue) {
        position += 1
        collector?.values.append(value)
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

    /// Throws when the record wrote the wrong number of values or a value with no stored form.
    /// A refused binding is left in ``bindFailure`` for the driver, which knows its codes.
    @inlinable
    package func finish(_ plan: RecordPlan) throws {
        if position != columnCount || conversionFailure != nil { try fail(plan) }
    }

    @usableFromInline
    func fail(_ plan: RecordPlan) throws {
        if let conversionFailure { throw conversionFailure }
        if let collector, collector.learning { return try collector.finish(type: plan.typeName) }
        if position != columnCount {
            throw PersistenceError.columnCountMismatch(
                type: plan.typeName, columns: collector?.columns ?? layout?.columns ?? [], written: position)
        }
    }
}

/// How a driver binds values to its prepared statements, for records written straight into a
/// statement's bindings: C functions, so that binding costs no reference counting and no
/// dynamic dispatch. Each returns 0 when the value was bound, or the driver's error code.
@usableFromInline
package struct ParameterBinder: Sendable {
    /// Binds a 64-bit integer to parameter `index` (1-based).
    @usableFromInline let int64: @convention(c) (OpaquePointer?, Int32, Int64) -> Int32
    /// Binds a double.
    @usableFromInline let double: @convention(c) (OpaquePointer?, Int32, Double) -> Int32
    /// Binds NULL.
    @usableFromInline let null: @convention(c) (OpaquePointer?, Int32) -> Int32
    /// Binds `count` bytes of UTF-8 text, copied; the pointer may be nil when `count` is 0.
    @usableFromInline let text: @convention(c) (OpaquePointer?, Int32, UnsafeRawPointer?, Int) -> Int32
    /// Binds `count` bytes as a blob, copied; the pointer may be nil when `count` is 0.
    @usableFromInline let blob: @convention(c) (OpaquePointer?, Int32, UnsafeRawPointer?, Int) -> Int32

    @inlinable
    package init(
        int64: @convention(c) (OpaquePointer?, Int32, Int64) -> Int32,
        double: @convention(c) (OpaquePointer?, Int32, Double) -> Int32,
        null: @convention(c) (OpaquePointer?, Int32) -> Int32,
        text: @convention(c) (OpaquePointer?, Int32, UnsafeRawPointer?, Int) -> Int32,
        blob: @convention(c) (OpaquePointer?, Int32, UnsafeRawPointer?, Int) -> Int32
    ) {
        self.int64 = int64
        self.double = double
        self.null = null
        self.text = text
        self.blob = blob
    }

    /// The binder of an encoder that collects values rather than binding them: never called.
    @usableFromInline static let none = ParameterBinder(
        int64: { _, _, _ in 0 }, double: { _, _, _ in 0 }, null: { _, _ in 0 }, text: { _, _, _, _ in 0 },
        blob: { _, _, _, _ in 0 })

    @inlinable
    func bindText(_ value: String, _ handle: OpaquePointer, _ index: Int32) -> Int32 {
        var value = value
        return value.withUTF8 { bytes in text(handle, index, UnsafeRawPointer(bytes.baseAddress), bytes.count) }
    }

    @inlinable
    func bind(_ value: DatabaseValue, _ handle: OpaquePointer, _ index: Int32) -> Int32 {
        switch value {
        case .null: return null(handle, index)
        case .integer(let int): return int64(handle, index, int)
        case .real(let double): return self.double(handle, index, double)
        case .text(let text): return bindText(text, handle, index)
        case .blob(let bytes): return bytes.withUnsafeBytes { raw in blob(handle, index, raw.baseAddress, raw.count) }
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
