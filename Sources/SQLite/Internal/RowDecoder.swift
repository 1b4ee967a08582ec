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

    init() {}

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

/// Decodes `Decodable` values from a statement's rows: each coding key names a column.
///
/// A statement keeps one decoder per decoded type, which moves along the statement's rows from
/// one fetch to the next. It keeps the raw statement handle and step generation as plain
/// fields, and hands out one keyed container per key type for its whole life, so decoding a row
/// allocates nothing and decoding a field costs no reference counting.
///
/// Dates, UUIDs, `Data` and every `DatabaseValueConvertible` type decode from their column with
/// the package's own conversions; other nested values decode from JSON text.
final class RowDecoder: Decoder {
    /// Not reference counted: the statement owns its decoders, and one that user code keeps
    /// past a fetch holds it in `keptStatement` (see ``keep(statement:)``).
    private let unmanagedStatement: Unmanaged<Statement>
    private var keptStatement: Statement?
    var statement: Statement { unmanagedStatement.takeUnretainedValue() }
    let plan = RowDecodingPlan()
    /// The type the decoder decodes.
    let type: ObjectIdentifier
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
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(statement: Statement, type: ObjectIdentifier) {
        unmanagedStatement = .passUnretained(statement)
        self.type = type
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

    /// Moves the decoder to `row`, a row of its statement.
    @inline(__always)
    func moveTo(_ row: BorrowedRow) {
        generation = row.generation
        plan.startRow()
    }

    /// The column of a coding key, or nil when the row has no such column.
    @inline(__always)
    func column<Key: CodingKey>(for key: Key) -> Int? {
        // Borrowed, since this runs for every column decoded.
        unmanagedStatement._withUnsafeGuaranteedRef { plan.index(for: key, statement: $0) }
    }

    /// Column `index` converted to `T`, read straight from the statement; nil when the value
    /// does not convert.
    @inline(__always)
    func read<T: StatementColumnConvertible>(_ type: T.Type, at index: Int) -> T? {
        precondition(
            generationPointer.pointee == generation,
            "A row read from a statement was used after the fetch moved on; keep rows with row.copy()")
        return T(sqliteStatement: handle, column: Int32(truncatingIfNeeded: index))
    }

    /// Column `index` converted to `T`, or an error that names the column and what it holds.
    func value<T: StatementColumnConvertible>(_ type: T.Type, at index: Int) throws -> T {
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

    /// True when user code kept one of the decoder's keyed containers past its `init(from:)`.
    var hasKeptContainer: Bool {
        var index = 0
        while index < containers.count {
            if !isKnownUniquelyReferenced(&containers[index].box) { return true }
            index += 1
        }
        return false
    }

    /// Leaves the decoder, which user code kept past a fetch (itself or one of its keyed
    /// containers), alive for good with its statement: keyed containers point at their decoder
    /// without a reference count (see ``RowKeyedContainer``), and the decoder at its statement.
    /// Reading a row from it then traps, as reading any stale row does.
    func keep(statement: Statement) {
        keptStatement = statement
        _ = Unmanaged.passRetained(self)
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw DecodingError.typeMismatch(
            [Any].self, .init(codingPath: [], debugDescription: "a row decodes as a keyed container, not an array"))
    }

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
    private func value<T: StatementColumnConvertible>(_ type: T.Type, _ key: Key) throws -> T {
        try withDecoder { decoder in
            guard let index = decoder.column(for: key) else { throw columnNotFound(key, T.self) }
            guard let value = decoder.read(type, at: index) else { throw decoder.readError(T.self, at: index) }
            return value
        }
    }

    @inline(__always)
    private func optionalValue<T: StatementColumnConvertible>(_ type: T.Type, _ key: Key) throws -> T? {
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
