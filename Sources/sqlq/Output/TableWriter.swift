import SQLite

/// Aligned columns for people, in the style of psql and usql:
///
///      id | title    | priority
///     ----+----------+---------
///       1 | Buy milk |        3
///     (1 row)
///
/// Number columns are right-aligned, NULL shows as `NULL` (dimmed on a terminal), and control
/// characters in text show escaped (`\n`, `\t`) so that every row stays on one line.
final class TableWriter: RowWriter {
    private let output: OutputStream
    private let style: TextStyle
    private let showsRowCount: Bool
    private var columns: [String] = []
    private var rows: [[SQLiteValue]] = []

    init(output: OutputStream, style: TextStyle, showsRowCount: Bool = true) {
        self.output = output
        self.style = style
        self.showsRowCount = showsRowCount
    }

    func begin(columns: [String]) {
        self.columns = columns
        rows = []
    }

    func write(row: [SQLiteValue]) {
        rows.append(row)
    }

    func end() {
        let cells = rows.map { row in row.map { Self.visible($0.cellText) } }
        var widths = columns.map(\.count)
        var rightAligned = [Bool](repeating: true, count: columns.count)
        var hasValue = [Bool](repeating: false, count: columns.count)
        for (row, texts) in zip(rows, cells) {
            for index in columns.indices {
                widths[index] = max(widths[index], texts[index].count)
                let value = row[index]
                if value.isNull { continue }
                hasValue[index] = true
                if !value.isNumber { rightAligned[index] = false }
            }
        }
        for index in columns.indices where !hasValue[index] { rightAligned[index] = false }

        var header = ""
        var rule = ""
        for index in columns.indices {
            if index > 0 {
                header += "|"
                rule += "+"
            }
            header +=
                " " + style.bold(Self.pad(Self.visible(columns[index]), widths[index], right: rightAligned[index]))
                + " "
            rule += String(repeating: "-", count: widths[index] + 2)
        }
        output.writeLine(Self.trimmingTrailingSpaces(header))
        output.writeLine(rule)
        for (row, texts) in zip(rows, cells) {
            var line = ""
            for index in columns.indices {
                if index > 0 { line += "|" }
                let padded = Self.pad(texts[index], widths[index], right: rightAligned[index])
                line += " " + (row[index].isNull ? style.dim(padded) : padded) + " "
            }
            output.writeLine(Self.trimmingTrailingSpaces(line))
        }
        if showsRowCount {
            output.writeLine(style.dim(rows.count == 1 ? "(1 row)" : "(\(rows.count) rows)"))
        }
    }

    private static func pad(_ text: String, _ width: Int, right: Bool) -> String {
        let padding = width - text.count
        if padding <= 0 { return text }
        let spaces = String(repeating: " ", count: padding)
        return right ? spaces + text : text + spaces
    }

    private static func trimmingTrailingSpaces(_ line: String) -> String {
        var line = line
        while line.last == " " { line.removeLast() }
        return line
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
