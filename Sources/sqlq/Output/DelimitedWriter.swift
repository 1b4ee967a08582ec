/// Comma- or tab-separated values with a header line.
///
/// - CSV follows RFC 4180: fields with a comma, a double quote or a line break are quoted,
///   with quotes doubled, and lines end with CRLF. So that `sqlq import` reads every value back
///   as it was, an unquoted field that is not text is written as SQL spells it: NULL is an empty
///   field, a blob `X'00FF'`, infinities `1e999` and `-1e999`; and text that would read as one
///   of those, or as a number, is quoted: `""`, `"X'00'"`, `"12"`.
/// - TSV puts one row per line: tabs, line breaks and backslashes inside values are written
///   `\t`, `\n`, `\r` and `\\`, other control characters `\xHH`. NULL is `\N`, as PostgreSQL's
///   COPY and MySQL write it, and the empty string an empty field.
/// - Text that is not UTF-8 is written as its bytes, unchanged.
struct DelimitedWriter: RowEncoder {
    enum Kind {
        case csv
        case tsv
    }

    let kind: Kind

    func begin(columns: [String], _ out: inout ByteBuffer) {
        for (index, name) in columns.enumerated() {
            if index > 0 { out.append(kind == .csv ? UInt8(ascii: ",") : UInt8(ascii: "\t")) }
            var name = name
            name.withUTF8 { bytes in
                switch kind {
                case .csv: Self.appendCSV(bytes, quoted: Self.hasSeparator(bytes), &out)
                case .tsv: Self.appendTSV(bytes, &out)
                }
            }
        }
        endRow(&out)
    }

    func beginRow(_ out: inout ByteBuffer) {}

    @inline(__always)
    func cell(_ cell: Cell, column: Int, _ out: inout ByteBuffer) {
        switch kind {
        case .csv:
            if column > 0 { out.append(UInt8(ascii: ",")) }
            switch cell {
            case .null: break
            case .integer(let integer): out.appendDecimal(integer)
            case .real(let real):
                if real.isFinite || real.isNaN {
                    out.appendReal(real)
                } else {
                    out.append(real < 0 ? "-1e999" : "1e999")
                }
            case .blob(let bytes): out.appendBlobLiteral(bytes)
            case .boolean(let value): out.append(UInt8(ascii: value ? "t" : "f"))
            case .number(let bytes): out.append(bytes)
            case .text(let bytes), .invalidText(let bytes): Self.appendCSV(bytes, quoted: Self.needsQuotes(bytes), &out)
            }
        case .tsv:
            if column > 0 { out.append(UInt8(ascii: "\t")) }
            switch cell {
            case .null: out.append("\\N")
            case .integer(let integer): out.appendDecimal(integer)
            case .real(let real): out.appendReal(real)
            case .blob(let bytes): out.appendBlobLiteral(bytes)
            case .boolean(let value): out.append(UInt8(ascii: value ? "t" : "f"))
            case .number(let bytes): out.append(bytes)
            case .text(let bytes), .invalidText(let bytes): Self.appendTSV(bytes, &out)
            }
        }
    }

    func endRow(_ out: inout ByteBuffer) {
        switch kind {
        case .csv:
            out.append(UInt8(ascii: "\r"))
            out.append(UInt8(ascii: "\n"))
        case .tsv:
            out.append(UInt8(ascii: "\n"))
        }
    }

    func end(rowCount: Int, _ out: inout ByteBuffer) {}

    @inline(__always)
    private static func hasSeparator(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        for byte in bytes
        where byte == UInt8(ascii: ",") || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\n")
            || byte == UInt8(ascii: "\r")
        {
            return true
        }
        return false
    }

    /// Whether CSV text must be quoted: for its commas, quotes or line breaks, or because
    /// unquoted it would read back as NULL, a blob or a number.
    @inline(__always)
    private static func needsQuotes(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = bytes.first else { return true }
        if hasSeparator(bytes) { return true }
        switch first {
        case UInt8(ascii: "X"), UInt8(ascii: "x"):
            return bytes.count > 1 && bytes[1] == UInt8(ascii: "'")
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), 0...0x20:
            return TextBytes.isNumericLiteral(bytes)
        default:
            return false
        }
    }

    private static func appendCSV(_ bytes: UnsafeBufferPointer<UInt8>, quoted: Bool, _ out: inout ByteBuffer) {
        guard quoted else { return out.append(bytes) }
        out.append(UInt8(ascii: "\""))
        var spanStart = 0
        for (index, byte) in bytes.enumerated() where byte == UInt8(ascii: "\"") {
            // Through this quote, then the quote again.
            out.append(UnsafeBufferPointer(rebasing: bytes[spanStart...index]))
            spanStart = index
        }
        out.append(UnsafeBufferPointer(rebasing: bytes[spanStart...]))
        out.append(UInt8(ascii: "\""))
    }

    private static func appendTSV(_ bytes: UnsafeBufferPointer<UInt8>, _ out: inout ByteBuffer) {
        var spanStart = 0
        for (index, byte) in bytes.enumerated() {
            let escape: UInt8
            switch byte {
            case UInt8(ascii: "\t"): escape = UInt8(ascii: "t")
            case UInt8(ascii: "\n"): escape = UInt8(ascii: "n")
            case UInt8(ascii: "\r"): escape = UInt8(ascii: "r")
            case UInt8(ascii: "\\"): escape = UInt8(ascii: "\\")
            case 0..<0x20, 0x7F: escape = UInt8(ascii: "x")
            default: continue
            }
            out.append(UnsafeBufferPointer(rebasing: bytes[spanStart..<index]))
            if escape == UInt8(ascii: "x") {
                out.append(TextBytes.hexEscape(byte))
            } else {
                out.append(UInt8(ascii: "\\"))
                out.append(escape)
            }
            spanStart = index + 1
        }
        out.append(UnsafeBufferPointer(rebasing: bytes[spanStart...]))
    }
}
