import SQLite

/// Reads CSV as RFC 4180 describes it: a header line of column names, then one record per line;
/// fields separated by commas; a field in double quotes may hold commas, line breaks and doubled
/// quotes. Lines may end with CRLF or LF; a UTF-8 byte order mark is skipped.
///
/// A quoted field is always text. Unquoted, a field is read as csv export writes values that are
/// not text: an empty field is NULL, `X'00FF'` a blob, and in a column declared without a type
/// (see ``readNumbers(inUntypedColumnsOf:)``) a number is a number. Elsewhere an unquoted number
/// stays text, which the column's affinity converts as SQLite does.
struct CSVReader: RecordReader {
    private let bytes: [UInt8]
    private let file: String
    private var index = 0
    private var line = 1
    private var header: [String] = []
    private var untyped: [Bool] = []
    private(set) var bytesRead = 0

    /// Reads the header line, which every file must have.
    init(bytes: [UInt8], file: String) throws {
        self.bytes = bytes
        self.file = file
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
        guard let (first, fields) = try record() else {
            throw ImportError(
                file: file, line: 1, message: "the file is empty; a CSV file starts with a header line of column names")
        }
        for (position, field) in fields.enumerated() where field.text.isEmpty {
            throw ImportError(file: file, line: first, message: "column \(position + 1) of the header has no name")
        }
        var positions: [String: Int] = [:]
        for (position, field) in fields.enumerated() {
            if let earlier = positions.updateValue(position, forKey: field.text.lowercased()) {
                throw ImportError(
                    file: file, line: first,
                    message:
                        "the header names the column \"\(fields[earlier].text)\" twice (columns \(earlier + 1) and \(position + 1))"
                )
            }
        }
        header = fields.map(\.text)
        untyped = [Bool](repeating: false, count: header.count)
    }

    /// Reads unquoted numbers as numbers in the columns of `schema` declared without a type (or
    /// as BLOB), where SQLite keeps text as text: there an exported `12` is the integer 12 and
    /// `"12"` the text.
    mutating func readNumbers(inUntypedColumnsOf schema: TableSchema) {
        untyped = header.map { name in
            let column =
                schema.columns.first { $0.name == name }
                ?? schema.columns.first { $0.name.lowercased() == name.lowercased() }
            return column?.affinity == .blob
        }
    }

    mutating func next() throws -> ImportRecord? {
        guard let (start, fields) = try record() else { return nil }
        guard fields.count == header.count else {
            throw ImportError(
                file: file, line: start,
                message:
                    "\(fields.count) field\(fields.count == 1 ? "" : "s"), but the header has \(header.count) columns")
        }
        var values: [SQLiteValue] = []
        values.reserveCapacity(fields.count)
        for (position, field) in fields.enumerated() {
            if field.quoted {
                values.append(.text(field.text))
            } else if field.text.isEmpty {
                values.append(.null)
            } else if let blob = Self.blob(field.text) {
                values.append(blob)
            } else if untyped[position], let number = Self.number(field.text) {
                values.append(number)
            } else {
                values.append(.text(field.text))
            }
        }
        return ImportRecord(line: start, columns: header, values: values)
    }

    /// The blob of a literal `X'…'` (or `x'…'`) with an even number of hexadecimal digits.
    static func blob(_ text: String) -> SQLiteValue? {
        let utf8 = text.utf8
        guard utf8.count >= 3, utf8.first == UInt8(ascii: "X") || utf8.first == UInt8(ascii: "x"),
            utf8.dropFirst().first == UInt8(ascii: "'"), utf8.last == UInt8(ascii: "'"), utf8.count % 2 == 1
        else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity((utf8.count - 3) / 2)
        var high: UInt8?
        for byte in utf8.dropFirst(2).dropLast() {
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            default: return nil
            }
            if let first = high {
                bytes.append(first << 4 | digit)
                high = nil
            } else {
                high = digit
            }
        }
        return .blob(bytes)
    }

    /// An integer when the text is one, else a real when SQLite reads the text as a number
    /// (`1.0` stays a real, `1e999` is infinity); nil for other text.
    static func number(_ text: String) -> SQLiteValue? {
        if let integer = Int64(text) { return .integer(integer) }
        guard SQLiteValue.numericAffinity(of: text) != nil, let real = Double(text) else { return nil }
        return .real(real)
    }

    private struct Field {
        var text: String
        var quoted: Bool
    }

    /// The next record with the line it starts on, skipping blank lines; nil at the end.
    private mutating func record() throws -> (Int, [Field])? {
        while index < bytes.count, bytes[index] == UInt8(ascii: "\n") || bytes[index] == UInt8(ascii: "\r") {
            if bytes[index] == UInt8(ascii: "\n") { line += 1 }
            index += 1
        }
        guard index < bytes.count else {
            bytesRead = bytes.count
            return nil
        }
        let start = line
        var fields: [Field] = []
        while true {
            let field = try self.field(recordLine: start)
            fields.append(field)
            if index >= bytes.count { break }
            let byte = bytes[index]
            index += 1
            if byte == UInt8(ascii: ",") { continue }
            if byte == UInt8(ascii: "\r"), index < bytes.count, bytes[index] == UInt8(ascii: "\n") { index += 1 }
            line += 1
            break
        }
        bytesRead = index
        return (start, fields)
    }

    /// One field, leaving `index` on the comma or line break after it (or at the end).
    private mutating func field(recordLine: Int) throws -> Field {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
            let start = index
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: ",") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") { break }
                if byte == UInt8(ascii: "\"") {
                    throw ImportError(
                        file: file, line: line,
                        message:
                            "a double quote inside a field that does not start with one; quote the whole field and double the quote (\"\")"
                    )
                }
                index += 1
            }
            return Field(text: String(decoding: bytes[start..<index], as: UTF8.self), quoted: false)
        }
        let opening = line
        index += 1
        var text: [UInt8] = []
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            if byte == UInt8(ascii: "\"") {
                if index < bytes.count, bytes[index] == UInt8(ascii: "\"") {
                    text.append(byte)
                    index += 1
                    continue
                }
                if index < bytes.count,
                    ![UInt8(ascii: ","), UInt8(ascii: "\n"), UInt8(ascii: "\r")].contains(bytes[index])
                {
                    throw ImportError(
                        file: file, line: line,
                        message: "text after the closing quote of a field; a field ends at a comma or a line break")
                }
                return Field(text: String(decoding: text, as: UTF8.self), quoted: true)
            }
            if byte == UInt8(ascii: "\n") { line += 1 }
            text.append(byte)
        }
        throw ImportError(file: file, line: opening, message: "a quoted field is never closed")
    }
}
