import SQLite

/// A GitHub-flavoured Markdown table, padded so that it also reads well as plain text:
///
///     | id | title    | priority |
///     |---:|----------|---------:|
///     |  1 | Buy milk |        3 |
///
/// `|` is escaped as `\|` and line breaks become `<br>`, so that every row stays one table row.
final class MarkdownWriter: RowWriter {
    private let output: OutputStream
    private var columns: [String] = []
    private var rows: [[SQLiteValue]] = []

    init(output: OutputStream) {
        self.output = output
    }

    func begin(columns: [String]) {
        self.columns = columns
        rows = []
    }

    func write(row: [SQLiteValue]) {
        rows.append(row)
    }

    func end() {
        let header = columns.map(Self.escape)
        let cells = rows.map { row in row.map { Self.escape($0.cellText) } }
        var widths = header.map { max($0.count, 3) }
        var rightAligned = [Bool](repeating: true, count: columns.count)
        var hasValue = [Bool](repeating: false, count: columns.count)
        for (row, texts) in zip(rows, cells) {
            for index in columns.indices {
                widths[index] = max(widths[index], texts[index].count)
                if row[index].isNull { continue }
                hasValue[index] = true
                if !row[index].isNumber { rightAligned[index] = false }
            }
        }
        for index in columns.indices where !hasValue[index] { rightAligned[index] = false }

        func line(_ texts: [String]) -> String {
            var line = "|"
            for index in columns.indices {
                let padding = String(repeating: " ", count: max(0, widths[index] - texts[index].count))
                line += " " + (rightAligned[index] ? padding + texts[index] : texts[index] + padding) + " |"
            }
            return line
        }
        output.writeLine(line(header))
        var rule = "|"
        for index in columns.indices {
            rule +=
                rightAligned[index]
                ? String(repeating: "-", count: widths[index] + 1) + ":|"
                : String(repeating: "-", count: widths[index] + 2) + "|"
        }
        output.writeLine(rule)
        for texts in cells { output.writeLine(line(texts)) }
    }

    private static func escape(_ text: String) -> String {
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
