/// JSON: an array of objects (`json`), or one object per line (`ndjson`).
///
/// Keys follow the column order. Integers and reals are JSON numbers (infinities are `1e999`
/// and `-1e999`, which JSON parsers read back as infinities), text is a string, NULL is `null`,
/// and a blob is `{"$base64": true, "encoded": "…"}`, as datasette writes it. `sqlq import`
/// reads all of these back as they were.
struct JSONWriter: RowEncoder {
    let linePerRow: Bool
    /// Each key as a JSON string followed by a colon, with a comma before all but the first.
    private var keys: [[UInt8]] = []
    private var rowCount = 0

    /// JSON strings are Unicode: bytes that are not UTF-8 cannot be written unchanged.
    static var writesInvalidText: Bool { false }

    init(linePerRow: Bool) {
        self.linePerRow = linePerRow
    }

    mutating func begin(columns: [String], _ out: inout ByteBuffer) {
        keys = columns.enumerated().map { index, name in
            var key = ByteBuffer(fileDescriptor: -1, capacity: name.utf8.count * 6 + 4)
            defer { key.deallocate() }
            if index > 0 { key.append(UInt8(ascii: ",")) }
            var name = name
            name.withUTF8 { Self.appendString($0, &key) }
            key.append(UInt8(ascii: ":"))
            return Array(UnsafeBufferPointer(start: key.start, count: key.count))
        }
        rowCount = 0
        if !linePerRow { out.append(UInt8(ascii: "[")) }
    }

    mutating func beginRow(_ out: inout ByteBuffer) {
        if !linePerRow {
            if rowCount > 0 { out.append(UInt8(ascii: ",")) }
            out.append(UInt8(ascii: "\n"))
        }
        rowCount += 1
        out.append(UInt8(ascii: "{"))
    }

    @inline(__always)
    func cell(_ cell: Cell, column: Int, _ out: inout ByteBuffer) {
        keys[column].withUnsafeBufferPointer { out.append($0) }
        switch cell {
        case .null: out.append("null")
        case .boolean(let value): out.append(value ? "true" : "false")
        case .integer(let integer): out.appendDecimal(integer)
        case .real(let real):
            // SQLite stores NaN as NULL, so no NaN comes out of a database.
            if real.isFinite {
                out.appendReal(real)
            } else {
                out.append(real.isNaN ? "null" : real < 0 ? "-1e999" : "1e999")
            }
        // Refused before it gets here (writesInvalidText); written as is were it not.
        // Only JSON's own numbers are written bare: the rows a JSON format is given hold
        // integers and reals where exact, and text for a decimal a double cannot hold.
        case .text(let bytes), .invalidText(let bytes), .number(let bytes): Self.appendString(bytes, &out)
        case .blob(let bytes):
            out.append("{\"$base64\":true,\"encoded\":\"")
            out.appendBase64(bytes)
            out.append("\"}")
        }
    }

    func endRow(_ out: inout ByteBuffer) {
        out.append(UInt8(ascii: "}"))
        if linePerRow { out.append(UInt8(ascii: "\n")) }
    }

    func end(rowCount: Int, _ out: inout ByteBuffer) {
        if !linePerRow { out.append(self.rowCount == 0 ? "]\n" : "\n]\n") }
    }

    /// A JSON string literal: quotes, backslashes and control characters escaped; everything
    /// else, non-ASCII included, written as UTF-8.
    @inline(__always)
    static func appendString(_ bytes: UnsafeBufferPointer<UInt8>, _ out: inout ByteBuffer) {
        out.append(UInt8(ascii: "\""))
        var spanStart = 0
        for (index, byte) in bytes.enumerated()
        where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
            out.append(UnsafeBufferPointer(rebasing: bytes[spanStart..<index]))
            spanStart = index + 1
            out.append(UInt8(ascii: "\\"))
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): out.append(byte)
            case UInt8(ascii: "\n"): out.append(UInt8(ascii: "n"))
            case UInt8(ascii: "\r"): out.append(UInt8(ascii: "r"))
            case UInt8(ascii: "\t"): out.append(UInt8(ascii: "t"))
            default:
                let digits: StaticString = "0123456789abcdef"
                out.append("u00")
                digits.withUTF8Buffer { hex in
                    out.append(hex[Int(byte >> 4)])
                    out.append(hex[Int(byte & 0xF)])
                }
            }
        }
        out.append(UnsafeBufferPointer(rebasing: bytes[spanStart...]))
        out.append(UInt8(ascii: "\""))
    }
}
