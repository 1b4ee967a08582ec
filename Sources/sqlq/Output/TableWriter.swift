/// Aligned columns for people, in the style of psql and usql:
///
///      id | title    | priority
///     ----+----------+---------
///       1 | Buy milk |        3
///     (1 row)
///
/// Number columns are right-aligned, NULL shows as `NULL` (dimmed on a terminal), and control
/// characters in text show escaped (`\n`, `\t`) so that every row stays on one line.
struct TableWriter: RowEncoder {
    let layout: ColumnLayout
    let style: TextStyle
    let showsRowCount: Bool
    private var lineStart = 0

    init(layout: ColumnLayout, style: TextStyle, showsRowCount: Bool = true) {
        self.layout = layout
        self.style = style
        self.showsRowCount = showsRowCount
    }

    func begin(columns: [String], _ out: inout ByteBuffer) {
        var header = ""
        var rule = ""
        for (index, name) in columns.enumerated() {
            if index > 0 {
                header += "|"
                rule += "+"
            }
            let shown = Self.visible(name)
            let padding = String(repeating: " ", count: layout.padding(TextBytes.displayWidth(shown), column: index))
            header += " " + style.bold(layout.rightAligned[index] ? padding + shown : shown + padding) + " "
            rule += String(repeating: "-", count: layout.widths[index] + 2)
        }
        let start = out.count
        out.append(header)
        out.trimSpaces(downTo: start)
        out.append(UInt8(ascii: "\n"))
        out.append(rule)
        out.append(UInt8(ascii: "\n"))
    }

    mutating func beginRow(_ out: inout ByteBuffer) {
        lineStart = out.count
    }

    @inline(__always)
    func cell(_ cell: Cell, column: Int, _ out: inout ByteBuffer) {
        if column > 0 { out.append(UInt8(ascii: "|")) }
        out.append(UInt8(ascii: " "))
        let dims = cell.isNull && style.isEnabled
        if dims { out.append("\u{1B}[2m") }
        let padding = layout.padding(Self.width(of: cell), column: column)
        let right = layout.rightAligned[column]
        if right { out.append(UInt8(ascii: " "), repeated: padding) }
        switch cell {
        case .null: out.append("NULL")
        case .integer(let integer): out.appendDecimal(integer)
        case .real(let real): out.appendReal(real)
        case .blob(let bytes): out.appendBlobLiteral(bytes)
        case .boolean(let value): out.append(UInt8(ascii: value ? "t" : "f"))
        case .number(let bytes): out.append(bytes)
        case .text(let bytes): Self.appendVisible(bytes, &out)
        case .invalidText(let bytes): out.append(TextBytes.showing(bytes, Self.visible))
        }
        if !right { out.append(UInt8(ascii: " "), repeated: padding) }
        if dims { out.append("\u{1B}[0m") }
        out.append(UInt8(ascii: " "))
    }

    func endRow(_ out: inout ByteBuffer) {
        out.trimSpaces(downTo: lineStart)
        out.append(UInt8(ascii: "\n"))
    }

    func end(rowCount: Int, _ out: inout ByteBuffer) {
        guard showsRowCount else { return }
        out.append(style.dim(rowCount == 1 ? "(1 row)" : "(\(rowCount) rows)"))
        out.append(UInt8(ascii: "\n"))
    }

    /// How many terminal columns a cell takes: its text with control characters escaped.
    @inline(__always)
    static func width(of cell: Cell) -> Int {
        switch cell {
        case .null: return 4
        case .boolean: return 1
        case .number(let bytes): return bytes.count
        case .integer(let integer):
            var digits = integer < 0 ? 2 : 1
            var magnitude = integer.magnitude
            while magnitude >= 10 {
                magnitude /= 10
                digits += 1
            }
            return digits
        case .real(let real): return real.description.utf8.count
        case .blob(let bytes): return 3 + 2 * bytes.count
        case .text(let bytes):
            var width = bytes.count
            for byte in bytes where byte < 0x20 || byte >= 0x7F {
                guard byte < 0x80 else {
                    return TextBytes.displayWidth(visible(String(decoding: bytes, as: UTF8.self)))
                }
                switch byte {
                case UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"): width += 1
                default: width += 3
                }
            }
            return width
        case .invalidText(let bytes): return TextBytes.displayWidth(TextBytes.showing(bytes, visible))
        }
    }

    private static func appendVisible(_ bytes: UnsafeBufferPointer<UInt8>, _ out: inout ByteBuffer) {
        var spanStart = 0
        for (index, byte) in bytes.enumerated() where byte < 0x20 || byte == 0x7F {
            out.append(UnsafeBufferPointer(rebasing: bytes[spanStart..<index]))
            spanStart = index + 1
            out.append(UInt8(ascii: "\\"))
            switch byte {
            case UInt8(ascii: "\n"): out.append(UInt8(ascii: "n"))
            case UInt8(ascii: "\r"): out.append(UInt8(ascii: "r"))
            case UInt8(ascii: "\t"): out.append(UInt8(ascii: "t"))
            default:
                let digits: StaticString = "0123456789abcdef"
                out.append(UInt8(ascii: "x"))
                digits.withUTF8Buffer { hex in
                    out.append(hex[Int(byte >> 4)])
                    out.append(hex[Int(byte & 0xF)])
                }
            }
        }
        out.append(UnsafeBufferPointer(rebasing: bytes[spanStart...]))
    }

    /// Control characters as escapes, so that a value never breaks the layout.
    static func visible(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) else { return text }
        var escaped = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": escaped += "\\n"
            case "\r": escaped += "\\r"
            case "\t": escaped += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                let hex = String(scalar.value, radix: 16)
                escaped += "\\x" + (hex.count == 1 ? "0" + hex : hex)
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }
}
