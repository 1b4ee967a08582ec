import FoundationEssentials
import SQLite

/// JSON: an array of objects (`json`), or one object per line (`ndjson`).
///
/// Keys follow the column order. Integers and reals are JSON numbers (infinities are `1e999`
/// and `-1e999`, which JSON parsers read back as infinities), text is a string, NULL is `null`,
/// and a blob is `{"$base64": true, "encoded": "…"}`, as datasette writes it. `sqlq import`
/// reads all of these back as they were.
final class JSONWriter: RowWriter {
    private let output: OutputStream
    private let linePerRow: Bool
    private var keys: [String] = []
    private var rowCount = 0

    init(output: OutputStream, linePerRow: Bool) {
        self.output = output
        self.linePerRow = linePerRow
    }

    func begin(columns: [String]) {
        keys = columns.map { Self.string($0) + ":" }
        rowCount = 0
        if !linePerRow { output.write("[") }
    }

    func write(row: [SQLiteValue]) {
        if !linePerRow { output.write(rowCount == 0 ? "\n" : ",\n") }
        rowCount += 1
        var object = "{"
        for (index, value) in row.enumerated() {
            if index > 0 { object += "," }
            object += keys[index]
            object += Self.json(value)
        }
        object += "}"
        output.write(object)
        if linePerRow { output.write("\n") }
    }

    func end() {
        if !linePerRow { output.write(rowCount == 0 ? "]\n" : "\n]\n") }
    }

    static func json(_ value: SQLiteValue) -> String {
        switch value {
        case .null: return "null"
        case .integer(let integer): return String(integer)
        case .real(let real):
            if real.isFinite { return String(real) }
            // SQLite stores NaN as NULL, so no NaN comes out of a database.
            return real.isNaN ? "null" : real < 0 ? "-1e999" : "1e999"
        case .text(let text): return string(text)
        case .blob(let bytes): return "{\"$base64\":true,\"encoded\":\"" + Data(bytes).base64EncodedString() + "\"}"
        }
    }

    /// A JSON string literal: quotes, backslashes and control characters escaped; everything
    /// else, non-ASCII included, written as UTF-8.
    static func string(_ text: String) -> String {
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
}
