#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Resolves a `Decodable` type's coding keys to column indexes once per statement.
///
/// Synthesized `init(from:)` asks for keys in the same order on every row, so the plan learns
/// that order on the first row. Afterwards a key is matched by its type and its bits: a
/// synthesized `CodingKeys` enum is a plain value of at most 8 bytes, so matching it costs two
/// integer comparisons and no `String`. Other keys are matched by their `stringValue`. A
/// statement keeps one plan per decoded type.
@usableFromInline
final class RowDecodingPlan {
    struct Entry {
        var keyType: ObjectIdentifier
        /// The key's bits, for keys that are plain values of at most 8 bytes.
        var bits: UInt64?
        var index: Int?
    }

    // Only ever used on the connection's thread, one row at a time; dynamic exclusivity checks
    // on these would cost more than the lookups they guard.
    @exclusivity(unchecked) private var entries: [Entry] = []
    @exclusivity(unchecked) private var names: [String] = []
    @exclusivity(unchecked) private var position = 0

    @usableFromInline init() {}

    func startRow() { position = 0 }

    /// Forgets every column index, for a statement whose columns changed.
    func reset() {
        entries = []
        names = []
        position = 0
    }

    @inline(__always)
    func index<Key: CodingKey>(for key: Key, statement: Statement) -> Int? {
        let position = self.position
        if position < entries.count {
            let entry = entries[position]
            if entry.keyType == ObjectIdentifier(Key.self), let bits = entry.bits, bits == Self.bits(of: key) {
                self.position = position + 1
                return entry.index
            }
        }
        return slowIndex(for: key, statement: statement)
    }

    private func slowIndex<Key: CodingKey>(for key: Key, statement: Statement) -> Int? {
        let name = key.stringValue
        if position < entries.count, names[position] == name {
            position += 1
            return entries[position - 1].index
        }
        // `decodeIfPresent` and `contains` followed by `decode` ask for the same key twice.
        if position > 0, names[position - 1] == name {
            return entries[position - 1].index
        }
        let index = statement.columnIndex(named: name)
        if position == entries.count {
            entries.append(Entry(keyType: ObjectIdentifier(Key.self), bits: Self.bits(of: key), index: index))
            names.append(name)
            position += 1
        }
        return index
    }

    /// The bits of a key whose type holds no references and is 0, 1, 2, 4 or 8 bytes long, or
    /// nil. Equal bits then mean an equal key, hence the same `stringValue`; padding can only
    /// make equal keys look different, which falls back to comparing names.
    @inline(__always)
    static func bits<Key: CodingKey>(of key: Key) -> UInt64? {
        guard _isPOD(Key.self) else { return nil }
        switch MemoryLayout<Key>.size {
        case 0: return 0
        case 1: return UInt64(unsafeBitCast(key, to: UInt8.self))
        case 2: return UInt64(unsafeBitCast(key, to: UInt16.self))
        case 4: return UInt64(unsafeBitCast(key, to: UInt32.self))
        case 8: return unsafeBitCast(key, to: UInt64.self)
        default: return nil
        }
    }
}

/// Decodes `Decodable` values from the rows of one fetch: each coding key names a column.
///
/// One decoder serves the whole fetch and moves along the statement with it. It keeps the raw
/// statement handle and step generation as plain fields, and hands out one keyed container per
/// key type for the whole fetch, so decoding a row allocates nothing and decoding a field costs
/// no reference counting.
///
/// Dates, UUIDs, `Data` and every `SQLiteValueConvertible` type decode from their column with
/// the package's own conversions; other nested values decode from JSON text.
@usableFromInline
final class RowDecoder: Decoder {
    let statement: Statement
    let plan: RowDecodingPlan
    private let handle: OpaquePointer
    private let generationPointer: UnsafeMutablePointer<UInt64>
    // Only used on the connection's thread, one row at a time.
    @exclusivity(unchecked) private var generation: UInt64
    /// The keyed containers handed out, by key type: the container's box, and a vendor that
    /// returns it typed (see ``ContainerVendor``). Building a container anew would cost an
    /// allocation and generic metadata lookups on every row.
    @exclusivity(unchecked) private var containers: [(keyType: ObjectIdentifier, box: AnyObject, vendor: AnyObject)] =
        []
    /// The first container's key type and vendor, which `containers` keeps alive, as plain
    /// fields: nearly every row asks for this one, and reading it costs no reference count.
    @exclusivity(unchecked) private var firstKeyType: ObjectIdentifier?
    @exclusivity(unchecked) private var firstVendor: Unmanaged<AnyObject>?
    @usableFromInline var codingPath: [any CodingKey] { [] }
    @usableFromInline var userInfo: [CodingUserInfoKey: Any] { [:] }

    @usableFromInline
    init(statement: Statement, plan: RowDecodingPlan) {
        self.statement = statement
        self.plan = plan
        handle = statement.handle
        generationPointer = statement.generationPointer
        generation = statement.generation
    }

    /// The row the decoder stands on, for the paths that need a `BorrowedRow`.
    var row: BorrowedRow {
        var row = BorrowedRow(statement: statement)
        row.generation = generation
        return row
    }

    /// Decodes `row`, which must come from the decoder's statement.
    @inlinable
    func decode<T: Decodable>(_ type: T.Type, row: BorrowedRow) throws -> T {
        moveTo(row)
        return try T(from: self)
    }

    @usableFromInline
    func moveTo(_ row: BorrowedRow) {
        precondition(row.handle == handle, "a RowDecoder decodes rows of its own statement")
        generation = row.generation
        plan.startRow()
    }

    /// The column of a coding key, or nil when the row has no such column.
    @inline(__always)
    func column<Key: CodingKey>(for key: Key) -> Int? {
        plan.index(for: key, statement: statement)
    }

    /// Column `index` converted to `T`, read straight from the statement; nil when the value
    /// does not convert.
    @inline(__always)
    func read<T: SQLiteValueConvertible>(_ type: T.Type, at index: Int) -> T? {
        precondition(
            generationPointer.pointee == generation,
            "A row read from a statement was used after the fetch moved on; keep rows with row.copy()")
        return T(sqliteStatement: handle, column: Int32(truncatingIfNeeded: index))
    }

    /// Column `index` converted to `T`, or an error that names the column and what it holds.
    func value<T: SQLiteValueConvertible>(_ type: T.Type, at index: Int) throws -> T {
        guard let value = read(type, at: index) else { throw readError(type, at: index) }
        return value
    }

    // Kept out of line, so the decoding functions stay small.
    @inline(never)
    func readError(_ type: Any.Type, at index: Int) -> RowDecodingError {
        row.decodingError(type, index: index, value: statement.value(at: index))
    }

    func isNull(at index: Int) -> Bool {
        statement.isNull(at: index)
    }

    @usableFromInline
    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        let keyType = ObjectIdentifier(Key.self)
        if firstKeyType == keyType, let firstVendor {
            // The vendor was made for this key type below.
            return firstVendor._withUnsafeGuaranteedRef {
                unsafeDowncast($0, to: ContainerVendor<KeyedDecodingContainer<Key>>.self).container()
            }
        }
        for entry in containers where entry.keyType == keyType {
            return unsafeDowncast(entry.vendor, to: ContainerVendor<KeyedDecodingContainer<Key>>.self).container()
        }
        let container = KeyedDecodingContainer(RowKeyedContainer<Key>(decoder: self))
        precondition(
            MemoryLayout<KeyedDecodingContainer<Key>>.size == MemoryLayout<AnyObject>.size,
            "KeyedDecodingContainer is expected to be a single reference to its box")
        let box = unsafeBitCast(container, to: AnyObject.self)
        let vendor = ContainerVendor<KeyedDecodingContainer<Key>>(box: box)
        if containers.isEmpty {
            firstKeyType = keyType
            firstVendor = .passUnretained(vendor)
        }
        containers.append((keyType, box, vendor))
        return container
    }

    /// Ends the fetch. Keyed containers point at their decoder without a reference count (see
    /// ``RowKeyedContainer``); a container that user code kept past its `init(from:)` would
    /// outlive the decoder, so when one is still referenced from elsewhere, the decoder stays
    /// alive for good, and reading from that container traps as any stale row does.
    @usableFromInline
    func finish() {
        var index = 0
        while index < containers.count {
            if !isKnownUniquelyReferenced(&containers[index].box) {
                _ = Unmanaged.passRetained(self)
                return
            }
            index += 1
        }
    }

    @usableFromInline
    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw DecodingError.typeMismatch(
            [Any].self, .init(codingPath: [], debugDescription: "a row decodes as a keyed container, not an array"))
    }

    @usableFromInline
    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        ColumnDecoder(row: row, index: 0, key: nil)
    }
}

/// Returns a keyed container, from its box, as a value of type `Container`.
///
/// A decoder's `container(keyedBy:)` is generic over the key type only, so returning a
/// `KeyedDecodingContainer<Key>` there makes the runtime look up that type's metadata in a
/// global table, on every row. Here the container type is the class's own generic parameter,
/// whose metadata comes with the instance, so handing out the container costs no lookup.
final class ContainerVendor<Container> {
    /// Kept alive by the decoder that made the vendor, which holds the box as long as it holds this.
    unowned(unsafe) let box: AnyObject

    init(box: AnyObject) {
        self.box = box
    }

    // Inlined into a caller generic over the key type, the cast would look the metadata up again.
    @inline(never)
    func container() -> Container {
        unsafeBitCast(box, to: Container.self)
    }
}

struct RowKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    /// Not reference counted: the standard library copies the container out of its box for
    /// every field decoded, and counting would cost more than reading the column. The decoder
    /// outlives the container, because it keeps every container it hands out and
    /// ``RowDecoder/finish()`` keeps it alive when one escapes the fetch.
    private let unmanagedDecoder: Unmanaged<RowDecoder>

    init(decoder: RowDecoder) {
        unmanagedDecoder = .passUnretained(decoder)
    }

    /// The decoder, borrowed for the duration of `body` without a reference count.
    @inline(__always)
    private func withDecoder<Result>(_ body: (RowDecoder) throws -> Result) rethrows -> Result {
        try unmanagedDecoder._withUnsafeGuaranteedRef(body)
    }

    private var decoder: RowDecoder { unmanagedDecoder.takeUnretainedValue() }

    var codingPath: [any CodingKey] { [] }
    var allKeys: [Key] { decoder.statement.columnNames.compactMap { Key(stringValue: $0) } }

    @inline(__always)
    private func index(_ key: Key, _ type: Any.Type) throws -> Int {
        guard let index = withDecoder({ $0.column(for: key) }) else { throw columnNotFound(key, type) }
        return index
    }

    @inline(never)
    private func columnNotFound(_ key: Key, _ type: Any.Type) -> RowDecodingError {
        RowDecodingError(
            column: key.stringValue, index: nil, expectedType: "\(type)",
            reason: .columnNotFound(available: decoder.statement.columnNames), sql: decoder.statement.sql)
    }

    func contains(_ key: Key) -> Bool {
        decoder.column(for: key) != nil
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        decoder.isNull(at: try index(key, Any?.self))
    }

    @inline(__always)
    private func value<T: SQLiteValueConvertible>(_ type: T.Type, _ key: Key) throws -> T {
        try withDecoder { decoder in
            guard let index = decoder.column(for: key) else { throw columnNotFound(key, T.self) }
            guard let value = decoder.read(type, at: index) else { throw decoder.readError(T.self, at: index) }
            return value
        }
    }

    @inline(__always)
    private func optionalValue<T: SQLiteValueConvertible>(_ type: T.Type, _ key: Key) throws -> T? {
        try withDecoder { decoder in
            guard let index = decoder.column(for: key) else { return nil }
            guard let value = decoder.read(T?.self, at: index) else { throw decoder.readError(T?.self, at: index) }
            return value
        }
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try value(type, key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try value(type, key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try value(type, key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try value(type, key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try value(type, key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try value(type, key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try value(type, key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try integer(type, key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try integer(type, key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try integer(type, key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try integer(type, key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try integer(type, key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try integer(type, key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try integer(type, key) }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try optionalValue(type, key) }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try optionalValue(type, key) }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try optionalValue(type, key) }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try optionalValue(type, key) }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try optionalValue(type, key) }

    private func integer<T: FixedWidthInteger>(_ type: T.Type, _ key: Key) throws -> T {
        let index = try index(key, T.self)
        let wide = try decoder.value(Int64.self, at: index)
        guard let value = T(exactly: wide) else {
            throw decoder.row.decodingError(T.self, index: index, value: .integer(wide))
        }
        return value
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        let index = try index(key, T.self)
        return try ColumnDecoder(row: decoder.row, index: index, key: key).decode(type)
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let index = decoder.column(for: key) else { return nil }
        if decoder.isNull(at: index) { return nil }
        return try ColumnDecoder(row: decoder.row, index: index, key: key).decode(type)
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try ColumnDecoder(row: decoder.row, index: index(key, NestedKey.self), key: key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try ColumnDecoder(row: decoder.row, index: index(key, [Any].self), key: key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder { decoder }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        ColumnDecoder(row: decoder.row, index: try index(key, Any.self), key: key)
    }
}

/// Decodes one column: directly for `SQLiteValueConvertible` types, through the type's own
/// `init(from:)` for single-value types (a `RawRepresentable` enum), and from JSON text for
/// nested keyed or unkeyed values.
struct ColumnDecoder: Decoder, SingleValueDecodingContainer {
    let row: BorrowedRow
    let index: Int
    let key: (any CodingKey)?
    var codingPath: [any CodingKey] { key.map { [$0] } ?? [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        if let convertible = T.self as? any SQLiteValueConvertible.Type {
            let value = row.value(at: index)
            if let decoded = convertible.init(sqliteValue: value) { return decoded as! T }
            throw row.decodingError(T.self, index: index, value: value)
        }
        do {
            return try T(from: self)
        } catch let error as RowDecodingError {
            throw error
        } catch {
            throw RowDecodingError(
                column: row.columnNames[index], index: index, expectedType: "\(T.self)",
                reason: .other("\(error)"), sql: row.sql)
        }
    }

    func decodeNil() -> Bool { row.value(at: index).isNull }
    func decode(_ type: Bool.Type) throws -> Bool { try row[index] }
    func decode(_ type: String.Type) throws -> String { try row[index] }
    func decode(_ type: Double.Type) throws -> Double { try row[index] }
    func decode(_ type: Float.Type) throws -> Float { try row[index] }
    func decode(_ type: Int.Type) throws -> Int { try row[index] }
    func decode(_ type: Int64.Type) throws -> Int64 { try row[index] }
    func decode(_ type: Int32.Type) throws -> Int32 { try row[index] }
    func decode(_ type: Int8.Type) throws -> Int8 { try integer(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try integer(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try integer(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(type) }

    private func integer<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
        let raw = row.value(at: index)
        guard let wide = Int64(sqliteValue: raw), let value = T(exactly: wide) else {
            throw row.decodingError(T.self, index: index, value: raw)
        }
        return value
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        try jsonDecoder().container(keyedBy: type)
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try jsonDecoder().unkeyedContainer()
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    /// Nested values are stored as JSON text; decoding them goes through Foundation's decoder.
    private func jsonDecoder() throws -> any Decoder {
        let value = row.value(at: index)
        let bytes: [UInt8]
        switch value {
        case .text(let text): bytes = Array(text.utf8)
        case .blob(let blob): bytes = blob
        default: throw row.decodingError(Any.self, index: index, value: value)
        }
        return try JSONDecoder().decode(DecoderCapture.self, from: Data(bytes)).decoder
    }
}

/// Captures the decoder JSONDecoder creates, so a nested container can be read from it.
private struct DecoderCapture: Decodable {
    let decoder: any Decoder
    init(from decoder: any Decoder) throws { self.decoder = decoder }
}
