import PostgresNIO
import QueryBuilder
import SQLCore
import SQLRecords

/// One argument, sent as text with no type (OID 0), so that the server gives it the type its
/// place in the statement calls for: `1` binds to an integer, a boolean or a numeric column
/// alike, as it does on SQLite. (The query builder casts the values an integer column could not
/// parse: reals to `numeric`, integers beyond 32 bits to `int8`.)
struct UntypedParameter: PostgresDynamicTypeEncodable {
    /// The value's input text: decimal numbers, text as is, blobs as `\x` and hex (bytea's input).
    let text: String

    var psqlType: PostgresDataType { .null }
    var psqlFormat: PostgresFormat { .text }

    func encode<JSONEncoder: PostgresJSONEncoder>(
        into byteBuffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>
    ) {
        byteBuffer.writeString(text)
    }
}

extension PostgresQuery {
    /// `sql` with `arguments` bound to `$1`, `$2`…, never spliced into the SQL.
    init(sql: String, arguments: [DatabaseValue]) {
        var bindings = PostgresBindings(capacity: arguments.count)
        for argument in arguments {
            switch argument {
            case .null: bindings.appendNull()
            case .integer(let value): bindings.append(UntypedParameter(text: String(value)))
            // SQLite binds NaN as NULL; so does this, for the same rows and the same stored values.
            case .real(let value) where value.isNaN: bindings.appendNull()
            case .real(let value): bindings.append(UntypedParameter(text: Self.inputText(value)))
            case .text(let value): bindings.append(UntypedParameter(text: value))
            case .blob(let bytes): bindings.append(UntypedParameter(text: Self.byteaInput(bytes)))
            }
        }
        self.init(unsafeSQL: sql, binds: bindings)
    }

    /// Swift's shortest exact form ("0.1", "1e-05"), which PostgreSQL reads back to the same
    /// double; a whole number within 64 bits in all its digits, so that as a `numeric` it equals
    /// the integer SQLite compares it with (the shortest form of 2⁶⁰ + 256 ends in zeros); the
    /// infinities in PostgreSQL's spelling.
    private static func inputText(_ value: Double) -> String {
        if value.isInfinite { return value < 0 ? "-Infinity" : "Infinity" }
        if value == value.rounded(), let integer = Int64(exactly: value) { return String(integer) }
        return "\(value)"
    }

    /// bytea's hex input: `\x` then two hex digits a byte.
    private static func byteaInput(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = [UInt8(ascii: "\\"), UInt8(ascii: "x")]
        text.reserveCapacity(2 + bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
