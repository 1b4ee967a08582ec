/// A GitHub-flavoured Markdown table, padded so that it also reads well as plain text:
///
///     | id | title    | priority |
///     |---:|----------|---------:|
///     |  1 | Buy milk |        3 |
///
/// `|` is escaped as `\|` and line breaks become `<br>`, so that every row stays one table row.
struct MarkdownWriter: RowEncoder {
    let layout: ColumnLayout

    func begin(columns: [String], _ out: inout ByteBuffer) {
        out.append(UInt8(ascii: "|"))
        for (index, name) in columns.enumerated() {
            let escaped = Self.escape(name)
            appendPadded(escaped, width: escaped.count, column: index, &out)
        }
        out.append(UInt8(ascii: "\n"))
        out.append(UInt8(ascii: "|"))
        for index in columns.indices {
            let width = layout.widths[index]
            if layout.rightAligned[index] {
                out.append(UInt8(ascii: "-"), repeated: width + 1)
                out.append(":|")
            } else {
                out.append(UInt8(ascii: "-"), repeated: width + 2)
                out.append(UInt8(ascii: "|"))
            }
        }
        out.append(UInt8(ascii: "\n"))
    }

    func beginRow(_ out: inout ByteBuffer) {
        out.append(UInt8(ascii: "|"))
    }

    @inline(__always)
    func cell(_ cell: Cell, column: Int, _ out: inout ByteBuffer) {
        switch cell {
        case .null: appendPadded("NULL", width: 4, column: column, &out)
        case .integer, .real, .blob:
            appendPadded(cell, width: TableWriter.width(of: cell), column: column, &out)
        case .text(let bytes):
            if TextBytes.isASCII(bytes) {
                appendPadded(cell, width: Self.width(of: cell), column: column, &out)
            } else {
                // Escapes apply to whole characters, and a character may join a `|` to the
                // marks that follow it.
                let escaped = Self.escape(String(decoding: bytes, as: UTF8.self))
                appendPadded(escaped, width: escaped.count, column: column, &out)
            }
        }
    }

    func endRow(_ out: inout ByteBuffer) {
        out.append(UInt8(ascii: "\n"))
    }

    func end(rowCount: Int, _ out: inout ByteBuffer) {}

    private func appendPadded(_ text: String, width: Int, column: Int, _ out: inout ByteBuffer) {
        appendPadding(width, column: column, before: true, &out)
        out.append(text)
        appendPadding(width, column: column, before: false, &out)
    }

    @inline(__always)
    private func appendPadded(_ cell: Cell, width: Int, column: Int, _ out: inout ByteBuffer) {
        appendPadding(width, column: column, before: true, &out)
        switch cell {
        case .integer(let integer): out.appendDecimal(integer)
        case .real(let real): out.appendReal(real)
        case .blob(let bytes): out.appendBlobLiteral(bytes)
        case .text(let bytes): Self.appendEscapedASCII(bytes, &out)
        case .null: out.append("NULL")
        }
        appendPadding(width, column: column, before: false, &out)
    }

    /// The space before a cell and its padding on its side, or the padding after it and the
    /// space and bar that end it.
    @inline(__always)
    private func appendPadding(_ width: Int, column: Int, before: Bool, _ out: inout ByteBuffer) {
        let padding = layout.padding(width, column: column)
        if before {
            out.append(UInt8(ascii: " "))
            if layout.rightAligned[column] { out.append(UInt8(ascii: " "), repeated: padding) }
        } else {
            if !layout.rightAligned[column] { out.append(UInt8(ascii: " "), repeated: padding) }
            out.append(UInt8(ascii: " "))
            out.append(UInt8(ascii: "|"))
        }
    }

    /// How many characters a cell takes once escaped.
    @inline(__always)
    static func width(of cell: Cell) -> Int {
        guard case .text(let bytes) = cell else { return TableWriter.width(of: cell) }
        guard TextBytes.isASCII(bytes) else { return escape(String(decoding: bytes, as: UTF8.self)).count }
        var width = bytes.count
        var index = 0
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "|"), UInt8(ascii: "\\"): width += 1
            case UInt8(ascii: "\r"):
                // CRLF is one line break, one `<br>`.
                if index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "\n") {
                    width += 2
                    index += 1
                } else {
                    width += 3
                }
            case UInt8(ascii: "\n"): width += 3
            default: break
            }
            index += 1
        }
        return width
    }

    private static func appendEscapedASCII(_ bytes: UnsafeBufferPointer<UInt8>, _ out: inout ByteBuffer) {
        var index = 0
        var spanStart = 0
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "|"), UInt8(ascii: "\\"), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"):
                out.append(UnsafeBufferPointer(rebasing: bytes[spanStart..<index]))
                switch byte {
                case UInt8(ascii: "|"): out.append("\\|")
                case UInt8(ascii: "\\"): out.append("\\\\")
                case UInt8(ascii: "\t"): out.append(UInt8(ascii: " "))
                default:
                    if byte == UInt8(ascii: "\r"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "\n") {
                        index += 1
                    }
                    out.append("<br>")
                }
                spanStart = index + 1
            default: break
            }
            index += 1
        }
        out.append(UnsafeBufferPointer(rebasing: bytes[spanStart...]))
    }

    static func escape(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == UInt8(ascii: "|") || $0 == UInt8(ascii: "\\") || $0 < 0x20 }) else {
            return text
        }
        var escaped = ""
        for character in text {
            switch character {
            case "|": escaped += "\\|"
            case "\\": escaped += "\\\\"
            case "\n", "\r\n": escaped += "<br>"
            case "\r": escaped += "<br>"
            case "\t": escaped += " "
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
