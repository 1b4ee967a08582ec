import QueryBuilder
import SQLCore
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Encodes `Encodable` records to column values: each coding key names a column.
///
/// Synthesized `encode(to:)` writes the keys in the same order for every record, so the encoder
/// checks each key against the columns learned from earlier records, by position, and builds a
/// list of names only when a record departs from them.
///
/// One encoder is kept for reuse (see ``take(expected:)``), with its values' storage and its
/// keyed container: making them anew costs three allocations and generic metadata lookups per
/// record.
final class RecordEncoder: Encoder {
    // An encoder serves one record at a time, on one thread: dynamic exclusivity checks on these
    // would cost more than the appends they guard.
    @exclusivity(unchecked) private(set) var expected: [String] = []
    @exclusivity(unchecked) var values: [DatabaseValue] = []
    /// The record's column names, once they differ from `expected`; nil while they match.
    @exclusivity(unchecked) var divergedColumns: [String]?
    /// Why the record cannot be written, for shapes a row cannot hold.
    @exclusivity(unchecked) var problem: String?
    /// The keyed container of the last record, reused for the next of the same type. It points
    /// back at the encoder, so ``recycle()`` breaks that cycle when the encoder is dropped.
    @exclusivity(unchecked) private var cachedKeyType: Any.Type?
    @exclusivity(unchecked) private var cachedContainer: AnyObject?

    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// The encoder kept for reuse, as the bits of a retained reference; 0 when it is in use.
    private static let spare = Atomic<UInt>(0)

    /// An encoder for one record whose columns are expected to be `expected`: the spare one
    /// when no other thread holds it.
    static func take(expected: [String]) -> RecordEncoder {
        let encoder: RecordEncoder
        if let bits = UnsafeRawPointer(bitPattern: spare.exchange(0, ordering: .acquiring)) {
            // The exchange hands the one reference to this thread alone.
            encoder = Unmanaged<RecordEncoder>.fromOpaque(bits).takeRetainedValue()
            encoder.values.removeAll(keepingCapacity: true)
            encoder.divergedColumns = nil
            encoder.problem = nil
        } else {
            encoder = RecordEncoder()
        }
        encoder.expected = expected
        encoder.values.reserveCapacity(expected.count)
        return encoder
    }

    /// Gives the encoder back for the next record, once its values have been used.
    func recycle() {
        let bits = UInt(bitPattern: Unmanaged.passRetained(self).toOpaque())
        if !Self.spare.compareExchange(expected: 0, desired: bits, ordering: .releasing).exchanged {
            // Another encoder is already kept: let this one go, cycle broken first.
            cachedContainer = nil
            cachedKeyType = nil
            Unmanaged<RecordEncoder>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!).release()
        }
    }

    @inline(__always)
    func append(_ value: DatabaseValue, column: String) {
        let position = values.count
        if divergedColumns == nil {
            if position < expected.count && expected[position] == column {
                values.append(value)
                return
            }
            divergedColumns = Array(expected.prefix(position))
        }
        divergedColumns!.append(column)
        values.append(value)
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if let cachedContainer, cachedKeyType == Key.self {
            // KeyedEncodingContainer is a single reference to its box.
            return unsafeBitCast(cachedContainer, to: KeyedEncodingContainer<Key>.self)
        }
        let container = KeyedEncodingContainer(RecordKeyedContainer<Key>(encoder: self))
        if MemoryLayout<KeyedEncodingContainer<Key>>.size == MemoryLayout<AnyObject>.size {
            cachedContainer = unsafeBitCast(container, to: AnyObject.self)
            cachedKeyType = Key.self
        }
        return container
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        problem = "it encodes as an array; a record encodes a keyed container whose keys name columns"
        return DiscardingContainer<ColumnValueKey>()
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        problem = "it encodes as a single value; a record encodes a keyed container whose keys name columns"
        return DiscardingContainer<ColumnValueKey>()
    }
}

struct RecordKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: RecordEncoder
    var codingPath: [any CodingKey] { [] }

    mutating func encodeNil(forKey key: Key) throws { encoder.append(.null, column: key.stringValue) }
    mutating func encode(_ value: Bool, forKey key: Key) throws {
        encoder.append(.integer(value ? 1 : 0), column: key.stringValue)
    }
    mutating func encode(_ value: String, forKey key: Key) throws {
        encoder.append(.text(value), column: key.stringValue)
    }
    mutating func encode(_ value: Double, forKey key: Key) throws {
        encoder.append(.real(value), column: key.stringValue)
    }
    mutating func encode(_ value: Float, forKey key: Key) throws {
        encoder.append(.real(Double(value)), column: key.stringValue)
    }
    mutating func encode(_ value: Int, forKey key: Key) throws {
        encoder.append(.integer(Int64(value)), column: key.stringValue)
    }
    mutating func encode(_ value: Int8, forKey key: Key) throws {
        encoder.append(.integer(Int64(value)), column: key.stringValue)
    }
    mutating func encode(_ value: Int16, forKey key: Key) throws {
        encoder.append(.integer(Int64(value)), column: key.stringValue)
    }
    mutating func encode(_ value: Int32, forKey key: Key) throws {
        encoder.append(.integer(Int64(value)), column: key.stringValue)
    }
    mutating func encode(_ value: Int64, forKey key: Key) throws {
        encoder.append(.integer(value), column: key.stringValue)
    }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try encodeUnsigned(value, key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws {
        encoder.append(.integer(Int64(value)), column: key.stringValue)
    }
    mutating func encode(_ value: UInt16, forKey key: Key) throws {
        encoder.append(.integer(Int64(value)), column: key.stringValue)
    }
    mutating func encode(_ value: UInt32, forKey key: Key) throws {
        encoder.append(.integer(Int64(value)), column: key.stringValue)
    }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try encodeUnsigned(value, key) }

    private func encodeUnsigned<T: FixedWidthInteger>(_ value: T, _ key: Key) throws {
        guard let exact = Int64(exactly: value) else {
            throw EncodingError.invalidValue(
                value,
                .init(
                    codingPath: [key], debugDescription: "\(value) does not fit in SQLite's 64-bit signed integer"))
        }
        encoder.append(.integer(exact), column: key.stringValue)
    }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        encoder.append(try ColumnValueEncoder.value(of: value, key: key), column: key.stringValue)
    }

    // Synthesized conformances encode optionals with encodeIfPresent, which by default leaves a
    // nil out. Writing NULL instead keeps the columns of every record of a type the same, and
    // sets the column to NULL on update, which is what a nil property means.
    mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws { try encodeOptional(value, key) }
    mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws { try encodeOptional(value, key) }
    mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws { try encodeOptional(value, key) }
    mutating func encodeIfPresent(_ value: Float?, forKey key: Key) throws { try encodeOptional(value, key) }
    mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws { try encodeOptional(value, key) }
    mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) throws { try encodeOptional(value, key) }
    mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) throws { try encodeOptional(value, key) }
    mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) throws { try encodeOptional(value, key) }
    mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws { try encodeOptional(value, key) }
    mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) throws { try encodeOptional(value, key) }
    mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws { try encodeOptional(value, key) }
    mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws { try encodeOptional(value, key) }
    mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws { try encodeOptional(value, key) }
    mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws { try encodeOptional(value, key) }
    mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws { try encodeOptional(value, key) }

    private mutating func encodeOptional<T: Encodable>(_ value: T?, _ key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        encoder.problem =
            "it opens a nested container for \"\(key.stringValue)\"; encode a nested value as a property of its own type, which is stored as JSON"
        return KeyedEncodingContainer(DiscardingContainer<NestedKey>())
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        encoder.problem =
            "it opens a nested container for \"\(key.stringValue)\"; encode an array as a property, which is stored as JSON"
        return DiscardingContainer<Key>()
    }

    mutating func superEncoder() -> any Encoder { encoder }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        encoder.problem = "it encodes a superclass under \"\(key.stringValue)\"; a row has no nested values"
        return encoder
    }
}

/// Turns one property into a column value: `DatabaseValueConvertible` types as they bind,
/// single-value types (a `RawRepresentable` enum) through their own `encode(to:)`, and keyed or
/// unkeyed values as JSON text, which is how `Row` decoding reads them back.
final class ColumnValueEncoder: Encoder, SingleValueEncodingContainer {
    var value: DatabaseValue?
    var needsJSON = false
    let key: any CodingKey
    var codingPath: [any CodingKey] { [key] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(key: any CodingKey) { self.key = key }

    static func value<T: Encodable>(of value: T, key: any CodingKey) throws -> DatabaseValue {
        if let convertible = value as? any DatabaseValueConvertible { return try convertible.databaseValue }
        let encoder = ColumnValueEncoder(key: key)
        try value.encode(to: encoder)
        if !encoder.needsJSON, let single = encoder.value { return single }
        let json = JSONEncoder()
        json.outputFormatting = [.sortedKeys]
        return .text(String(decoding: try json.encode(value), as: UTF8.self))
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        needsJSON = true
        return KeyedEncodingContainer(DiscardingContainer<Key>())
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        needsJSON = true
        return DiscardingContainer<ColumnValueKey>()
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { self }

    func encodeNil() throws { value = .null }
    func encode(_ value: Bool) throws { self.value = .integer(value ? 1 : 0) }
    func encode(_ value: String) throws { self.value = .text(value) }
    func encode(_ value: Double) throws { self.value = .real(value) }
    func encode(_ value: Float) throws { self.value = .real(Double(value)) }
    func encode(_ value: Int) throws { self.value = .integer(Int64(value)) }
    func encode(_ value: Int8) throws { self.value = .integer(Int64(value)) }
    func encode(_ value: Int16) throws { self.value = .integer(Int64(value)) }
    func encode(_ value: Int32) throws { self.value = .integer(Int64(value)) }
    func encode(_ value: Int64) throws { self.value = .integer(value) }
    func encode(_ value: UInt) throws { try encodeUnsigned(value) }
    func encode(_ value: UInt8) throws { self.value = .integer(Int64(value)) }
    func encode(_ value: UInt16) throws { self.value = .integer(Int64(value)) }
    func encode(_ value: UInt32) throws { self.value = .integer(Int64(value)) }
    func encode(_ value: UInt64) throws { try encodeUnsigned(value) }

    private func encodeUnsigned<T: FixedWidthInteger>(_ value: T) throws {
        guard let exact = Int64(exactly: value) else {
            throw EncodingError.invalidValue(
                value,
                .init(
                    codingPath: [key], debugDescription: "\(value) does not fit in SQLite's 64-bit signed integer"))
        }
        self.value = .integer(exact)
    }

    func encode<T: Encodable>(_ value: T) throws {
        self.value = try Self.value(of: value, key: key)
    }
}

private struct ColumnValueKey: CodingKey {
    var stringValue: String { "" }
    var intValue: Int? { nil }
    init?(stringValue: String) {}
    init?(intValue: Int) {}
}

/// Accepts and drops everything: returned where the `Encoder` protocol requires a container
/// that the record cannot use, after noting why.
private struct DiscardingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol, UnkeyedEncodingContainer,
    SingleValueEncodingContainer
{
    var codingPath: [any CodingKey] { [] }
    var count: Int { 0 }
    mutating func encodeNil() throws {}
    mutating func encodeNil(forKey key: Key) throws {}
    mutating func encode<T: Encodable>(_ value: T) throws {}
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {}
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<
        NestedKey
    > {
        KeyedEncodingContainer(DiscardingContainer<NestedKey>())
    }
    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        KeyedEncodingContainer(DiscardingContainer<NestedKey>())
    }
    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { self }
    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer { self }
    mutating func superEncoder() -> any Encoder { DiscardingEncoder() }
    mutating func superEncoder(forKey key: Key) -> any Encoder { DiscardingEncoder() }
}

private struct DiscardingEncoder: Encoder {
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(DiscardingContainer<Key>())
    }
    func unkeyedContainer() -> any UnkeyedEncodingContainer { DiscardingContainer<ColumnValueKey>() }
    func singleValueContainer() -> any SingleValueEncodingContainer { DiscardingContainer<ColumnValueKey>() }
}
