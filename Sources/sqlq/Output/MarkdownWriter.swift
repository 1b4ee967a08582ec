/// A GitHub-flavoured Markdown table, padded so that it also reads well as plain text:
///
///     | id | title    | priority |
///     |---:|----------|---------:|
///     |  1 | Buy milk |        3 |
///
/// `|` is escaped as `\|` and line breaks become `<br>`, so that every row stays one table row;
/// other control characters, and the bytes of text that is not UTF-8, show as `\xHH`.
struct MarkdownWriter: RowEncoder {
    let layout: ColumnLayout

    func begin(columns: [String], _ out: inout ByteBuffer) {
        out.append(UInt8(ascii: "|"))
        for (index, name) in columns.enumerated() {
            let escaped = Self.escape(name)
            appendPadded(escaped, width: TextBytes.displayWidth(escaped), column: index, &out)
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
        case .integer, .real, .blob, .boolean, .number:
            appendPadded(cell, width: TableWriter.width(of: cell), column: column, &out)
        case .text(let bytes):
            if TextBytes.isASCII(bytes) {
                appendPadded(cell, width: Self.width(of: cell), column: column, &out)
            } else {
                // Escapes apply to whole characters, and a character may join a `|` to the
                // marks that follow it.
                let escaped = Self.escape(String(decoding: bytes, as: UTF8.self))
                appendPadded(escaped, width: TextBytes.displayWidth(escaped), column: column, &out)
            }
        case .invalidText(let bytes):
            let escaped = TextBytes.showing(bytes, Self.escape)
            appendPadded(escaped, width: TextBytes.displayWidth(escaped), column: column, &out)
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
        case .boolean(let value): out.append(UInt8(ascii: value ? "t" : "f"))
        case .number(let bytes): out.append(bytes)
        case .text(let bytes): Self.appendEscapedASCII(bytes, &out)
        case .invalidText(let bytes): out.append(TextBytes.showing(bytes, Self.escape))
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

    /// How many terminal columns a cell takes once escaped.
    @inline(__always)
    static func width(of cell: Cell) -> Int {
        if case .invalidText(let bytes) = cell { return TextBytes.displayWidth(TextBytes.showing(bytes, escape)) }
        guard case .text(let bytes) = cell else { return TableWriter.width(of: cell) }
        guard TextBytes.isASCII(bytes) else {
            return TextBytes.displayWidth(escape(String(decoding: bytes, as: UTF8.self)))
        }
        var width = bytes.count
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
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
            case 0..<0x20 where byte != UInt8(ascii: "\t"), 0x7F: width += 3
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
            case UInt8(ascii: "|"), UInt8(ascii: "\\"), 0..<0x20, 0x7F:
                out.append(UnsafeBufferPointer(rebasing: bytes[spanStart..<index]))
                switch byte {
                case UInt8(ascii: "|"): out.append("\\|")
                case UInt8(ascii: "\\"): out.append("\\\\")
                case UInt8(ascii: "\t"): out.append(UInt8(ascii: " "))
                case UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                    if byte == UInt8(ascii: "\r"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "\n") {
                        index += 1
                    }
                    out.append("<br>")
                default: out.append(TextBytes.hexEscape(byte))
                }
                spanStart = index + 1
            default: break
            }
            index += 1
        }
        out.append(UnsafeBufferPointer(rebasing: bytes[spanStart...]))
    }

    static func escape(_ text: String) -> String {
        guard
            text.utf8.contains(where: { $0 == UInt8(ascii: "|") || $0 == UInt8(ascii: "\\") || $0 < 0x20 || $0 == 0x7F }
            )
        else {
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
            default:
                // A control character alone; joined with marks it is still one to escape.
                if let first = character.unicodeScalars.first, first.value < 0x20 || first.value == 0x7F {
                    escaped += TextBytes.hexEscape(UInt8(first.value))
                    for mark in character.unicodeScalars.dropFirst() { escaped.unicodeScalars.append(mark) }
                } else {
                    escaped.append(character)
                }
            }
        }
        return escaped
    }
}
