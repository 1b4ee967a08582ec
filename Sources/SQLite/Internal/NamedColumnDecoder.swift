/// Decodes a `Decodable` value from a row of any source, finding each coding key's column by
/// name: for the rows that do not come from a SQLite statement (PostgreSQL's), which
/// ``RowDecoder`` reads directly. Columns decode as ``RowDecoder``'s do, through ``ColumnDecoder``:
/// the same conversions, the same JSON for nested values, the same errors.
package struct NamedColumnDecoder: Decoder {
    let row: BorrowedRow

    /// `T` decoded from `row`.
    package static func decode<T: Decodable>(_ type: T.Type, from row: BorrowedRow) throws -> T {
        try T(from: NamedColumnDecoder(row: row))
    }

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
