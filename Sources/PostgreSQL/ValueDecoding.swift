import PostgresNIO
import QueryBuilder
import SQLCore
import SQLRecords

extension DatabaseValue {
    /// The value of a result cell, mapped by its PostgreSQL type onto the values SQLite has:
    /// integers (booleans as 1 and 0, as SQLite stores them), reals, text, blobs, NULL; dates,
    /// times, UUIDs and JSON as the text PostgreSQL would print for them.
    ///
    /// PostgresNIO asks for every result in binary format, so each type's binary form is read
    /// here. Throws ``PostgreSQLError`` of kind ``PostgreSQLError/Kind/unsupportedType`` for a
    /// type without a reader, with the cast that fixes it.
    init(_ cell: PostgresCell, sql: String) throws {
        guard var bytes = cell.bytes else {
            self = .null
            return
        }
        if cell.format == .text {
            self = .text(bytes.readString(length: bytes.readableBytes) ?? "")
            return
        }
        let value: DatabaseValue?
        switch cell.dataType {
        case .int2: value = bytes.readInteger(as: Int16.self).map { .integer(Int64($0)) }
        case .int4: value = bytes.readInteger(as: Int32.self).map { .integer(Int64($0)) }
        case .int8: value = bytes.readInteger(as: Int64.self).map { .integer($0) }
        case .oid: value = bytes.readInteger(as: UInt32.self).map { .integer(Int64($0)) }
        case .float4: value = bytes.readInteger(as: UInt32.self).map { .real(Double(Float(bitPattern: $0))) }
        case .float8: value = bytes.readInteger(as: UInt64.self).map { .real(Double(bitPattern: $0)) }
        case .numeric: value = PostgresBinaryText.numeric(&bytes).map { .real(Double($0) ?? .nan) }
        case .bool: value = bytes.readInteger(as: UInt8.self).map { .integer($0 == 0 ? 0 : 1) }
        case .text, .varchar, .bpchar, .name, .json, .xml, .unknown, .char:
            value = .text(bytes.readString(length: bytes.readableBytes) ?? "")
        case .jsonb:
            // A version byte (1), then the JSON text.
            bytes.moveReaderIndex(forwardBy: 1)
            value = .text(bytes.readString(length: bytes.readableBytes) ?? "")
        case .bytea: value = .blob(bytes.readBytes(length: bytes.readableBytes) ?? [])
        case .uuid: value = PostgresBinaryText.uuid(&bytes).map { .text($0) }
        case .date: value = bytes.readInteger(as: Int32.self).map { .text(PostgresBinaryText.date(days: Int64($0))) }
        case .time: value = bytes.readInteger(as: Int64.self).map { .text(PostgresBinaryText.time(microseconds: $0)) }
        case .timestamp:
            value = bytes.readInteger(as: Int64.self).map { .text(PostgresBinaryText.timestamp(microseconds: $0)) }
        case .timestamptz:
            value = bytes.readInteger(as: Int64.self).map {
                .text(PostgresBinaryText.timestamp(microseconds: $0, utcOffset: true))
            }
        default:
            throw PostgreSQLError(
                kind: .unsupportedType,
                message:
                    "column \"\(cell.columnName)\" has type \(cell.dataType) (OID \(cell.dataType.rawValue)), "
                    + "which cannot be read yet; cast it to text in the query: \(cell.columnName)::text",
                sql: sql)
        }
        guard let value else {
            throw PostgreSQLError(
                kind: .other, message: "column \"\(cell.columnName)\" holds a malformed \(cell.dataType) value",
                sql: sql)
        }
        self = value
    }
}
