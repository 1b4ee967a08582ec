import PostgresNIO
import QueryBuilder
import SQLCore
import SQLRecords

extension DatabaseValue {
    /// The value of a result cell, mapped by its PostgreSQL type onto the values SQLite has:
    /// integers (booleans as 1 and 0, as SQLite stores them), reals, text, blobs, NULL; dates,
    /// times, UUIDs and JSON as the text PostgreSQL would print for them; a `numeric` as
    /// `init(numeric:)` reads it, never rounded.
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
        case .numeric: value = PostgresBinaryText.numeric(&bytes).map(Self.init(numeric:))
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

extension DatabaseValue {
    /// A `numeric`'s decimal text (as PostgreSQL prints it), as a value that keeps every digit.
    ///
    /// A real when the double nearest the number prints back as the same number, so that
    /// writing it back stores the same `numeric` (`12.5`, `0.1`, `1e300`, the infinities); else
    /// an integer when the number is whole and fits 64 bits (the sum of large `bigint`s); else
    /// the exact decimal text, which `String` reads and `Double` refuses rather than rounding.
    /// NaN, which SQLite has no value for, is NULL, as a NaN double binds.
    init(numeric text: String) {
        switch text {
        case "NaN": self = .null
        case "Infinity": self = .real(.infinity)
        case "-Infinity": self = .real(-.infinity)
        default:
            if let double = Double(text), double.isFinite,
                let exact = DecimalDigits(text), exact == DecimalDigits("\(double)")
            {
                self = .real(double)
            } else if let integer = Int64(text) ?? Self.wholeInteger(text) {
                self = .integer(integer)
            } else {
                self = .text(text)
            }
        }
    }

    /// `123.000` as 123: the text of a whole `numeric` with a display scale.
    private static func wholeInteger(_ text: String) -> Int64? {
        guard let point = text.firstIndex(of: "."), text[text.index(after: point)...].allSatisfy({ $0 == "0" })
        else { return nil }
        return Int64(text[..<point])
    }
}

/// A decimal number as sign, significant digits and exponent, so that `12.50`, `12.5` and
/// `1.25e1` compare equal: the test of whether a double prints back as a `numeric`'s number.
private struct DecimalDigits: Equatable {
    var negative: Bool
    /// No leading or trailing zeros; empty for zero.
    var digits: [UInt8]
    /// The power of ten of the last digit.
    var exponent: Int

    /// Reads `-12.50`, `0.001`, `1e-05`, `1.5e+300`; nil for anything else.
    init?(_ text: String) {
        var bytes = Substring(text).utf8[...]
        negative = bytes.first == UInt8(ascii: "-")
        if negative || bytes.first == UInt8(ascii: "+") { bytes = bytes.dropFirst() }
        var mantissa = bytes
        var power = 0
        if let e = bytes.firstIndex(where: { $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }) {
            mantissa = bytes[..<e]
            // At most 5 exponent digits: no double's exponent has more, and it bounds the arithmetic.
            guard let value = Int(Substring(bytes[bytes.index(after: e)...])), abs(value) < 100_000 else {
                return nil
            }
            power = value
        }
        var all: [UInt8] = []
        var fraction = 0
        var seenPoint = false
        for byte in mantissa {
            if byte == UInt8(ascii: ".") {
                guard !seenPoint else { return nil }
                seenPoint = true
            } else if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
                all.append(byte - UInt8(ascii: "0"))
                if seenPoint { fraction += 1 }
            } else {
                return nil
            }
        }
        guard !all.isEmpty else { return nil }
        let trailing = all.reversed().prefix { $0 == 0 }.count
        all.removeLast(trailing)
        digits = Array(all.drop { $0 == 0 })
        exponent = digits.isEmpty ? 0 : power - fraction + trailing
        if digits.isEmpty { negative = false }
    }
}
