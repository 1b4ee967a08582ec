import SQLite

/// Comma- or tab-separated values with a header line.
///
/// - CSV follows RFC 4180: fields with a comma, a double quote or a line break are quoted,
///   with quotes doubled, and lines end with CRLF. NULL is an empty field.
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
        writeLine(row.map { $0.isNull ? "" : field($0.cellText) })
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
