import SQLite

/// Reads CSV as RFC 4180 describes it: a header line of column names, then one record per line;
/// fields separated by commas; a field in double quotes may hold commas, line breaks and doubled
/// quotes. Lines may end with CRLF or LF; a UTF-8 byte order mark is skipped.
///
/// An empty field becomes NULL; a quoted empty field (`""`) is the empty string.
struct CSVReader: RecordReader {
    private let bytes: [UInt8]
    private let file: String
    private var index = 0
    private var line = 1
    private var header: [String] = []
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
    }

    mutating func next() throws -> ImportRecord? {
        guard let (start, fields) = try record() else { return nil }
        guard fields.count == header.count else {
            throw ImportError(
                file: file, line: start,
                message:
                    "\(fields.count) field\(fields.count == 1 ? "" : "s"), but the header has \(header.count) columns")
        }
        let values = fields.map { field -> SQLiteValue in
            field.text.isEmpty && !field.quoted ? .null : .text(field.text)
        }
        return ImportRecord(line: start, columns: header, values: values)
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
