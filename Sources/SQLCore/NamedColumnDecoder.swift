#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Decodes a `Decodable` value from a row of any source, finding each coding key's column by
/// name: for the rows that do not come from a SQLite statement (PostgreSQL's), which SQLite's
/// own decoder reads directly. Columns decode as that decoder's do, through ``ColumnDecoder``:
/// the same conversions, the same JSON for nested values, the same errors.
package struct NamedColumnDecoder: Decoder {
    let row: BorrowedRow

    package var codingPath: [any CodingKey] { [] }
    package var userInfo: [CodingUserInfoKey: Any] { [:] }

    package func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(NamedColumnContainer<Key>(row: row))
    }

    package func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw DecodingError.typeMismatch(
            [Any].self, .init(codingPath: [], debugDescription: "a row decodes as a keyed container, not an array"))
    }

    package func singleValueContainer() throws -> any SingleValueDecodingContainer {
        ColumnDecoder(row: row, index: 0, key: nil)
    }
}

private struct NamedColumnContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let row: BorrowedRow

    var codingPath: [any CodingKey] { [] }
    var allKeys: [Key] { row.columnNames.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { row.index(ofColumn: key.stringValue) != nil }

    private func column(_ key: Key, _ type: Any.Type) throws -> ColumnDecoder {
        guard let index = row.index(ofColumn: key.stringValue) else {
            throw RowDecodingError(
                column: key.stringValue, index: nil, expectedType: "\(type)",
                reason: .columnNotFound(available: row.columnNames), sql: row.sql)
        }
        return ColumnDecoder(row: row, index: index, key: key)
    }

    func decodeNil(forKey key: Key) throws -> Bool { try column(key, Any?.self).decodeNil() }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try column(key, type).decode(type) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try column(key, type).decode(type) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try column(key, type).decode(type) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try column(key, type).decode(type) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try column(key, type).decode(type) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try column(key, type).decode(type) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try column(key, type).decode(type) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try column(key, type).decode(type) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try column(key, type).decode(type) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try column(key, type).decode(type) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try column(key, type).decode(type) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try column(key, type).decode(type) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try column(key, type).decode(type) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try column(key, type).decode(type) }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try column(key, type).decode(type) }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard contains(key), try !decodeNil(forKey: key) else { return nil }
        return try decode(type, forKey: key)
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try column(key, NestedKey.self).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try column(key, [Any].self).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder { NamedColumnDecoder(row: row) }

    func superDecoder(forKey key: Key) throws -> any Decoder { try column(key, Any.self) }
}

/// Decodes one column: directly for `DatabaseValueConvertible` types, through the type's own
/// `init(from:)` for single-value types (a `RawRepresentable` enum), and from JSON text for
/// nested keyed or unkeyed values.
package struct ColumnDecoder: Decoder, SingleValueDecodingContainer {
    let row: BorrowedRow
    let index: Int
    let key: (any CodingKey)?
    package var codingPath: [any CodingKey] { key.map { [$0] } ?? [] }
    package var userInfo: [CodingUserInfoKey: Any] { [:] }

    package init(row: BorrowedRow, index: Int, key: (any CodingKey)?) {
        self.row = row
        self.index = index
        self.key = key
    }

    package func decode<T: Decodable>(_ type: T.Type) throws -> T {
        if let convertible = T.self as? any DatabaseValueConvertible.Type {
            let value = row.value(at: index)
            if let decoded = convertible.init(databaseValue: value) { return decoded as! T }
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

    package func decodeNil() -> Bool { row.value(at: index).isNull }
    package func decode(_ type: Bool.Type) throws -> Bool { try row[index] }
    package func decode(_ type: String.Type) throws -> String { try row[index] }
    package func decode(_ type: Double.Type) throws -> Double { try row[index] }
    package func decode(_ type: Float.Type) throws -> Float { try row[index] }
    package func decode(_ type: Int.Type) throws -> Int { try row[index] }
    package func decode(_ type: Int64.Type) throws -> Int64 { try row[index] }
    package func decode(_ type: Int32.Type) throws -> Int32 { try row[index] }
    package func decode(_ type: Int8.Type) throws -> Int8 { try integer(type) }
    package func decode(_ type: Int16.Type) throws -> Int16 { try integer(type) }
    package func decode(_ type: UInt.Type) throws -> UInt { try integer(type) }
    package func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(type) }
    package func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(type) }
    package func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(type) }
    package func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(type) }

    private func integer<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
        let raw = row.value(at: index)
        guard let wide = Int64(databaseValue: raw), let value = T(exactly: wide) else {
            throw row.decodingError(T.self, index: index, value: raw)
        }
        return value
    }

    package func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        try jsonDecoder().container(keyedBy: type)
    }

    package func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try jsonDecoder().unkeyedContainer()
    }

    package func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

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
