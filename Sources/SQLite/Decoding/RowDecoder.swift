import Foundation

/// Resolves a `Decodable` type's coding keys to column indexes once per statement.
///
/// Synthesized `init(from:)` asks for keys in the same order on every row, so the plan learns
/// that order on the first row and afterwards matches each key with one string comparison
/// instead of a dictionary lookup.
final class RowDecodingPlan {
    private var keys: [String] = []
    private var indexes: [Int?] = []
    private var position = 0

    func startRow() { position = 0 }

    func index(for key: String, in row: Row) -> Int? {
        if position < keys.count, keys[position] == key {
            position += 1
            return indexes[position - 1]
        }
        // `decodeIfPresent` asks for the same key more than once in a row.
        if position > 0, keys[position - 1] == key {
            return indexes[position - 1]
        }
        let index = row.index(ofColumn: key)
        if position == keys.count {
            keys.append(key)
            indexes.append(index)
            position += 1
        }
        return index
    }
}

/// Decodes a `Decodable` value from one row: each coding key names a column.
///
/// Dates, UUIDs, `Data` and every ``SQLiteValueConvertible`` type decode from their column with
/// the package's own conversions; other nested values decode from JSON text.
struct RowDecoder: Decoder {
    let row: Row
    let plan: RowDecodingPlan
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(RowKeyedContainer<Key>(row: row, plan: plan))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw DecodingError.typeMismatch(
            [Any].self, .init(codingPath: [], debugDescription: "a row decodes as a keyed container, not an array"))
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        ColumnDecoder(row: row, index: 0, key: nil)
    }

    /// Decodes a whole row as `T`, turning `DecodingError`s into ``RowDecodingError``s that name the column.
    static func decode<T: Decodable>(_ type: T.Type, row: Row, plan: RowDecodingPlan) throws -> T {
        plan.startRow()
        return try T(from: RowDecoder(row: row, plan: plan))
    }
}

struct RowKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let row: Row
    let plan: RowDecodingPlan
    var codingPath: [any CodingKey] { [] }
    var allKeys: [Key] { row.columnNames.compactMap { Key(stringValue: $0) } }

    private func index(_ key: Key, _ type: Any.Type) throws -> Int {
        guard let index = plan.index(for: key.stringValue, in: row) else {
            throw RowDecodingError(
                column: key.stringValue, index: nil, expectedType: "\(type)",
                reason: .columnNotFound(available: row.columnNames), sql: row.sql)
        }
        return index
    }

    func contains(_ key: Key) -> Bool {
        plan.index(for: key.stringValue, in: row) != nil
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        row.value(at: try index(key, Any?.self)).isNull
    }

    @inline(__always)
    private func value<T: SQLiteValueConvertible>(_ type: T.Type, _ key: Key) throws -> T {
        try row[index(key, T.self)]
    }

    @inline(__always)
    private func optionalValue<T: SQLiteValueConvertible>(_ type: T.Type, _ key: Key) throws -> T? {
        guard let index = plan.index(for: key.stringValue, in: row) else { return nil }
        return try row[index] as T?
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
        let raw = row.value(at: index)
        guard let wide = Int64(sqliteValue: raw), let value = T(exactly: wide) else {
            throw row.decodingError(T.self, index: index, value: raw)
        }
        return value
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        let index = try index(key, T.self)
        return try ColumnDecoder(row: row, index: index, key: key).decode(type)
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let index = plan.index(for: key.stringValue, in: row) else { return nil }
        if row.value(at: index).isNull { return nil }
        return try ColumnDecoder(row: row, index: index, key: key).decode(type)
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try ColumnDecoder(row: row, index: index(key, NestedKey.self), key: key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try ColumnDecoder(row: row, index: index(key, [Any].self), key: key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder { RowDecoder(row: row, plan: RowDecodingPlan()) }
    func superDecoder(forKey key: Key) throws -> any Decoder {
        ColumnDecoder(row: row, index: try index(key, Any.self), key: key)
    }
}

/// Decodes one column: directly for ``SQLiteValueConvertible`` types, through the type's own
/// `init(from:)` for single-value types (a `RawRepresentable` enum), and from JSON text for
/// nested keyed or unkeyed values.
struct ColumnDecoder: Decoder, SingleValueDecodingContainer {
    let row: Row
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
