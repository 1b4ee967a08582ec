/// The statements of an SQL script, split at the semicolons that end them.
///
/// PostgresNIO speaks only the extended query protocol, which takes one statement at a time, so
/// a migration file is run statement by statement. A semicolon inside a string (`'…'`,
/// `E'…\'…'`), a quoted identifier, a dollar-quoted body (`$$…$$`, `$fn$…$fn$`: functions,
/// `DO` blocks) or a comment (`--`, nested `/* */`) does not end a statement. Statements holding
/// only comments are left out.
enum SQLScript {
    static func statements(_ script: String) -> [String] {
        let bytes = Array(script.utf8)
        var statements: [String] = []
        var start = 0
        var hasContent = false
        var index = 0

        func isIdentifierByte(_ byte: UInt8) -> Bool {
            byte == UInt8(ascii: "_") || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
                || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte >= 0x80
        }
        func finish(at end: Int) {
            if hasContent {
                let text = String(decoding: bytes[start..<end], as: UTF8.self)
                statements.append(text.trimmingWhitespace())
            }
            start = end + 1
            hasContent = false
        }

        while index < bytes.count {
            let byte = bytes[index]
            let next = index + 1 < bytes.count ? bytes[index + 1] : 0
            switch byte {
            case UInt8(ascii: "-") where next == UInt8(ascii: "-"):
                while index < bytes.count, bytes[index] != UInt8(ascii: "\n") { index += 1 }
                continue
            case UInt8(ascii: "/") where next == UInt8(ascii: "*"):
                var depth = 1
                index += 2
                while index < bytes.count, depth > 0 {
                    if bytes[index] == UInt8(ascii: "/"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "*")
                    {
                        depth += 1
                        index += 2
                    } else if bytes[index] == UInt8(ascii: "*"), index + 1 < bytes.count,
                        bytes[index + 1] == UInt8(ascii: "/")
                    {
                        depth -= 1
                        index += 2
                    } else {
                        index += 1
                    }
                }
                continue
            case UInt8(ascii: "'"), UInt8(ascii: "\""):
                hasContent = true
                // E'…' strings take backslash escapes: an E or e right before the quote, not
                // ending an identifier.
                let escapes =
                    byte == UInt8(ascii: "'") && index > 0
                    && (bytes[index - 1] == UInt8(ascii: "E") || bytes[index - 1] == UInt8(ascii: "e"))
                    && (index < 2 || !isIdentifierByte(bytes[index - 2]))
                index += 1
                while index < bytes.count {
                    if escapes, bytes[index] == UInt8(ascii: "\\") {
                        index += 2
                    } else if bytes[index] == byte {
                        // A doubled quote stands for one and goes on.
                        if index + 1 < bytes.count, bytes[index + 1] == byte {
                            index += 2
                        } else {
                            break
                        }
                    } else {
                        index += 1
                    }
                }
                index += 1
                continue
            case UInt8(ascii: "$") where index == 0 || !isIdentifierByte(bytes[index - 1]):
                // $tag$ or $$; `$1` is a parameter, since a tag cannot start with a digit.
                var end = index + 1
                while end < bytes.count, isIdentifierByte(bytes[end]),
                    end > index + 1 || !(bytes[end] >= UInt8(ascii: "0") && bytes[end] <= UInt8(ascii: "9"))
                {
                    end += 1
                }
                if end < bytes.count, bytes[end] == UInt8(ascii: "$") {
                    hasContent = true
                    let tag = bytes[index...end]
                    index = end + 1
                    while index < bytes.count, !bytes[index...].starts(with: tag) { index += 1 }
                    index += tag.count
                    continue
                }
                hasContent = true
            case UInt8(ascii: ";"):
                finish(at: index)
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                break
            default:
                hasContent = true
            }
            index += 1
        }
        finish(at: min(index, bytes.count))
        return statements
    }
}

extension String {
    fileprivate func trimmingWhitespace() -> String {
        let isSpace: (Character) -> Bool = { $0.isWhitespace }
        return String(drop(while: isSpace).reversed().drop(while: isSpace).reversed())
    }
}
