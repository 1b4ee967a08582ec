import SQLite

/// Comma- or tab-separated values with a header line.
///
/// - CSV follows RFC 4180: fields with a comma, a double quote or a line break are quoted,
///   with quotes doubled, and lines end with CRLF. So that `sqlq import` reads every value back
///   as it was, an unquoted field that is not text is written as SQL spells it: NULL is an empty
///   field, a blob `X'00FF'`, infinities `1e999` and `-1e999`; and text that would read as one
///   of those, or as a number, is quoted: `""`, `"X'00'"`, `"12"`.
/// - TSV puts one row per line: tabs, line breaks and backslashes inside values are written
///   `\t`, `\n`, `\r` and `\\`. NULL is an empty field.
final class DelimitedWriter: RowWriter {
    enum Kind {
        case csv
        case tsv
    }

    private let output: OutputStream
    private let kind: Kind

    init(output: OutputStream, kind: Kind) {
        self.output = output
        self.kind = kind
    }

    func begin(columns: [String]) {
        writeLine(columns.map { field($0) })
    }

    func write(row: [SQLiteValue]) {
        switch kind {
        case .csv: writeLine(row.map(Self.csvField))
        case .tsv: writeLine(row.map { $0.isNull ? "" : field($0.cellText) })
        }
    }

    private static func csvField(_ value: SQLiteValue) -> String {
        switch value {
        case .null: return ""
        case .integer(let integer): return String(integer)
        case .real(let real): return real.isFinite || real.isNaN ? String(real) : real < 0 ? "-1e999" : "1e999"
        case .blob: return value.description
        case .text(let text):
            guard needsQuotes(text) else { return text }
            var quoted = "\""
            for character in text {
                if character == "\"" { quoted += "\"\"" } else { quoted.append(character) }
            }
            return quoted + "\""
        }
    }

    /// Whether CSV text must be quoted: for its commas, quotes or line breaks, or because
    /// unquoted it would read back as NULL, a blob or a number.
    private static func needsQuotes(_ text: String) -> Bool {
        guard let first = text.utf8.first else { return true }
        if text.utf8.contains(where: { byte in
            byte == UInt8(ascii: ",") || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\n")
                || byte == UInt8(ascii: "\r")
        }) {
            return true
        }
        switch first {
        case UInt8(ascii: "X"), UInt8(ascii: "x"):
            return text.utf8.dropFirst().first == UInt8(ascii: "'")
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), 0...0x20:
            return SQLiteValue.numericAffinity(of: text) != nil
        default:
            return false
        }
    }

    func end() {}

    private func writeLine(_ fields: [String]) {
        switch kind {
        case .csv:
            output.write(fields.joined(separator: ","))
            output.write("\r\n")
        case .tsv:
            output.write(fields.joined(separator: "\t"))
            output.write("\n")
        }
    }

    /// A header field, or a TSV field.
    private func field(_ text: String) -> String {
        switch kind {
        case .csv:
            let needsQuotes = text.utf8.contains { byte in
                byte == UInt8(ascii: ",") || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\n")
                    || byte == UInt8(ascii: "\r")
            }
            guard needsQuotes else { return text }
            var quoted = "\""
            for character in text {
                if character == "\"" { quoted += "\"\"" } else { quoted.append(character) }
            }
            return quoted + "\""
        case .tsv:
            let needsEscapes = text.utf8.contains { byte in
                byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r")
                    || byte == UInt8(ascii: "\\")
            }
            guard needsEscapes else { return text }
            var escaped = ""
            for scalar in text.unicodeScalars {
                switch scalar {
                case "\t": escaped += "\\t"
                case "\n": escaped += "\\n"
                case "\r": escaped += "\\r"
                case "\\": escaped += "\\\\"
                default: escaped.unicodeScalars.append(scalar)
                }
            }
            return escaped
        }
    }
}
