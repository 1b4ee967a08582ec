import Foundation
import SQLite

@testable import sqlq

/// The output formats as they were written before sqlq wrote rows straight from SQLite's
/// buffers: one `String` per value, formatted with the standard library. Kept so that the tests
/// can check, byte for byte, that the faster writers print what these print. Since then, TSV
/// writes NULL as `\N`, TSV and Markdown escape control characters as `\xHH`, and the table and
/// Markdown formats measure text in terminal columns.
enum ReferenceWriters {
    /// What `format` printed for `result`.
    static func render(_ format: OutputFormat, _ result: ResultSet, style: TextStyle = .plain) -> String {
        switch format {
        case .csv: csv(result)
        case .tsv: tsv(result)
        case .json: json(result, linePerRow: false)
        case .ndjson: json(result, linePerRow: true)
        case .markdown: markdown(result)
        case .table: table(result, style: style)
        }
    }

    // MARK: CSV and TSV

    static func csv(_ result: ResultSet) -> String {
        var text = result.columns.map(csvHeaderField).joined(separator: ",") + "\r\n"
        for row in result.rows { text += row.map(csvField).joined(separator: ",") + "\r\n" }
        return text
    }

    static func tsv(_ result: ResultSet) -> String {
        var text = result.columns.map(tsvField).joined(separator: "\t") + "\n"
        for row in result.rows {
            text += row.map { $0.isNull ? "\\N" : tsvField(cellText($0)) }.joined(separator: "\t") + "\n"
        }
        return text
    }

    private static func csvField(_ value: DatabaseValue) -> String {
        switch value {
        case .null: return ""
        case .integer(let integer): return String(integer)
        case .real(let real): return real.isFinite || real.isNaN ? String(real) : real < 0 ? "-1e999" : "1e999"
        case .blob: return value.description
        case .text(let text):
            guard needsQuotes(text) else { return text }
            return quoted(text)
        }
    }

    private static func quoted(_ text: String) -> String {
        var quoted = "\""
        for character in text {
            if character == "\"" { quoted += "\"\"" } else { quoted.append(character) }
        }
        return quoted + "\""
    }

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
            return DatabaseValue.numericAffinity(of: text) != nil
        default:
            return false
        }
    }

    private static func csvHeaderField(_ text: String) -> String {
        let needsQuotes = text.utf8.contains { byte in
            byte == UInt8(ascii: ",") || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\n")
                || byte == UInt8(ascii: "\r")
        }
        return needsQuotes ? quoted(text) : text
    }

    private static func tsvField(_ text: String) -> String {
        let needsEscapes = text.utf8.contains { byte in byte < 0x20 || byte == 0x7F || byte == UInt8(ascii: "\\") }
        guard needsEscapes else { return text }
        var escaped = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\t": escaped += "\\t"
            case "\n": escaped += "\\n"
            case "\r": escaped += "\\r"
            case "\\": escaped += "\\\\"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F: escaped += hex(scalar)
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    private static func hex(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16)
        return "\\x" + (hex.count == 1 ? "0" + hex : hex)
    }

    // MARK: JSON

    static func json(_ result: ResultSet, linePerRow: Bool) -> String {
        let keys = result.columns.map { jsonString($0) + ":" }
        var text = linePerRow ? "" : "["
        for (number, row) in result.rows.enumerated() {
            if !linePerRow { text += number == 0 ? "\n" : ",\n" }
            var object = "{"
            for (index, value) in row.enumerated() {
                if index > 0 { object += "," }
                object += keys[index]
                object += jsonValue(value)
            }
            text += object + "}"
            if linePerRow { text += "\n" }
        }
        if !linePerRow { text += result.rows.isEmpty ? "]\n" : "\n]\n" }
        return text
    }

    private static func jsonValue(_ value: DatabaseValue) -> String {
        switch value {
        case .null: return "null"
        case .integer(let integer): return String(integer)
        case .real(let real):
            if real.isFinite { return String(real) }
            return real.isNaN ? "null" : real < 0 ? "-1e999" : "1e999"
        case .text(let text): return jsonString(text)
        case .blob(let bytes): return "{\"$base64\":true,\"encoded\":\"" + Data(bytes).base64EncodedString() + "\"}"
        }
    }

    private static func jsonString(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }

    // MARK: Markdown

    static func markdown(_ result: ResultSet) -> String {
        let columns = result.columns
        let rows = result.rows
        let header = columns.map(markdownEscape)
        let cells = rows.map { row in row.map { markdownEscape(cellText($0)) } }
        var widths = header.map { max(TextBytes.displayWidth($0), 3) }
        var rightAligned = [Bool](repeating: true, count: columns.count)
        var hasValue = [Bool](repeating: false, count: columns.count)
        for (row, texts) in zip(rows, cells) {
            for index in columns.indices {
                widths[index] = max(widths[index], TextBytes.displayWidth(texts[index]))
                if row[index].isNull { continue }
                hasValue[index] = true
                if !isNumber(row[index]) { rightAligned[index] = false }
            }
        }
        for index in columns.indices where !hasValue[index] { rightAligned[index] = false }

        func line(_ texts: [String]) -> String {
            var line = "|"
            for index in columns.indices {
                let padding = String(
                    repeating: " ", count: max(0, widths[index] - TextBytes.displayWidth(texts[index])))
                line += " " + (rightAligned[index] ? padding + texts[index] : texts[index] + padding) + " |"
            }
            return line
        }
        var text = line(header) + "\n"
        var rule = "|"
        for index in columns.indices {
            rule +=
                rightAligned[index]
                ? String(repeating: "-", count: widths[index] + 1) + ":|"
                : String(repeating: "-", count: widths[index] + 2) + "|"
        }
        text += rule + "\n"
        for texts in cells { text += line(texts) + "\n" }
        return text
    }

    private static func markdownEscape(_ text: String) -> String {
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
                let scalars = character.unicodeScalars
                if let first = scalars.first, first.value < 0x20 || first.value == 0x7F {
                    escaped += hex(first)
                    for mark in scalars.dropFirst() { escaped.unicodeScalars.append(mark) }
                } else {
                    escaped.append(character)
                }
            }
        }
        return escaped
    }

    // MARK: Table

    static func table(_ result: ResultSet, style: TextStyle, showsRowCount: Bool = true) -> String {
        let columns = result.columns
        let rows = result.rows
        let cells = rows.map { row in row.map { visible(cellText($0)) } }
        var widths = columns.map { TextBytes.displayWidth(visible($0)) }
        var rightAligned = [Bool](repeating: true, count: columns.count)
        var hasValue = [Bool](repeating: false, count: columns.count)
        for (row, texts) in zip(rows, cells) {
            for index in columns.indices {
                widths[index] = max(widths[index], TextBytes.displayWidth(texts[index]))
                let value = row[index]
                if value.isNull { continue }
                hasValue[index] = true
                if !isNumber(value) { rightAligned[index] = false }
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
            header += " " + style.bold(pad(visible(columns[index]), widths[index], right: rightAligned[index])) + " "
            rule += String(repeating: "-", count: widths[index] + 2)
        }
        var text = trimmingTrailingSpaces(header) + "\n" + rule + "\n"
        for (row, texts) in zip(rows, cells) {
            var line = ""
            for index in columns.indices {
                if index > 0 { line += "|" }
                let padded = pad(texts[index], widths[index], right: rightAligned[index])
                line += " " + (row[index].isNull ? style.dim(padded) : padded) + " "
            }
            text += trimmingTrailingSpaces(line) + "\n"
        }
        if showsRowCount {
            text += style.dim(rows.count == 1 ? "(1 row)" : "(\(rows.count) rows)") + "\n"
        }
        return text
    }

    private static func pad(_ text: String, _ width: Int, right: Bool) -> String {
        let padding = width - TextBytes.displayWidth(text)
        if padding <= 0 { return text }
        let spaces = String(repeating: " ", count: padding)
        return right ? spaces + text : text + spaces
    }

    private static func trimmingTrailingSpaces(_ line: String) -> String {
        var line = line
        while line.last == " " { line.removeLast() }
        return line
    }

    private static func visible(_ text: String) -> String {
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

    // MARK: Values

    private static func cellText(_ value: DatabaseValue) -> String {
        switch value {
        case .null: "NULL"
        case .integer(let value): String(value)
        case .real(let value): String(value)
        case .text(let value): value
        case .blob: value.description
        }
    }

    private static func isNumber(_ value: DatabaseValue) -> Bool {
        switch value {
        case .integer, .real: true
        default: false
        }
    }
}
