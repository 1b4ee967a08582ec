import SQLite

#if canImport(Glibc)
    import Glibc
#endif

/// Reads CSV as RFC 4180 describes it: a header line of column names, then one record per line;
/// fields separated by commas; a field in double quotes may hold commas, line breaks and doubled
/// quotes. Lines may end with CRLF or LF; a UTF-8 byte order mark is skipped. Blank lines are
/// skipped, except after a header of one column, where an empty line is a record whose field is
/// NULL.
///
/// A quoted field is always text. Unquoted, a field is read as csv export writes values that are
/// not text: an empty field is NULL, `X'00FF'` a blob, and in a column declared without a type
/// (see ``readNumbers(inUntypedColumnsOf:)``) a number is a number. Elsewhere an unquoted number
/// stays text, which the column's affinity converts as SQLite does.
///
/// The file is read in large chunks into one buffer, and each chunk is checked to be UTF-8
/// before any of it is parsed: memory holds one chunk and the record being read, however long
/// the file. The fields of a record are ranges of that buffer, valid until the next record.
struct CSVReader: RecordReader {
    private let file: String
    private let descriptor: Int32?
    private var buffer: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    /// The file's offset of `buffer[0]`.
    private var bufferOffset = 0
    /// Bytes read into the buffer, and of those the ones checked to be UTF-8.
    private var end = 0
    private var validatedEnd = 0
    private var atEndOfFile = false
    /// Where the next record starts, and the line it starts on.
    private var position = 0
    private var line = 1
    /// The line the current record starts on, and the header's.
    private(set) var recordLine = 0
    private(set) var headerLine = 1
    private var starts: [Int] = []
    private var ends: [Int] = []
    private var quoted: [Bool] = []
    private(set) var header: [String] = []
    /// For each column, whether an unquoted number in it is a number rather than text.
    private(set) var untyped: [Bool] = []
    /// Keeps the buffer's memory alive as long as any copy of this reader.
    private let storage: Storage

    var bytesRead: Int { bufferOffset + position }

    /// Reads `bytes`, all of which are in memory.
    init(bytes: [UInt8], file: String) throws {
        try self.init(file: file, descriptor: nil, initial: bytes)
    }

    /// Reads from `descriptor`, an open file or pipe, as far as its end.
    init(descriptor: Int32, file: String) throws {
        try self.init(file: file, descriptor: descriptor, initial: [])
    }

    /// Reads the header line, which every file must have.
    private init(file: String, descriptor: Int32?, initial: [UInt8]) throws {
        self.file = file
        self.descriptor = descriptor
        capacity = max(1 << 20, initial.count)
        buffer = .allocate(capacity: capacity)
        storage = Storage(buffer)
        initial.withUnsafeBufferPointer { bytes in
            if let base = bytes.baseAddress { buffer.update(from: base, count: bytes.count) }
        }
        end = initial.count
        atEndOfFile = descriptor == nil
        try validate()
        if descriptor != nil { try fill() }
        if end >= 3, buffer[0] == 0xEF, buffer[1] == 0xBB, buffer[2] == 0xBF { position = 3 }
        guard try nextRecord() else {
            throw ImportError(
                file: file, line: 1, message: "the file is empty; a CSV file starts with a header line of column names")
        }
        for index in 0..<fieldCount where starts[index] == ends[index] {
            throw ImportError(file: file, line: recordLine, message: "column \(index + 1) of the header has no name")
        }
        let names = (0..<fieldCount).map { String(decoding: field($0), as: UTF8.self) }
        // Keyed as SQLite matches names: by bytes, ignoring the case of ASCII letters only.
        var positions: [ExactString: Int] = [:]
        for (index, name) in names.enumerated() {
            if let earlier = positions.updateValue(index, forKey: ExactString(name.sqliteFolded)) {
                throw ImportError(
                    file: file, line: recordLine,
                    message:
                        "the header names the column \"\(names[earlier])\" twice (columns \(earlier + 1) and \(index + 1))"
                )
            }
        }
        header = names
        headerLine = recordLine
        untyped = [Bool](repeating: false, count: header.count)
    }

    /// Owns the buffer, which the reader (a struct, copied freely) only points to.
    private final class Storage {
        var buffer: UnsafeMutablePointer<UInt8>
        init(_ buffer: UnsafeMutablePointer<UInt8>) { self.buffer = buffer }
        deinit { buffer.deallocate() }
    }

    /// Reads unquoted numbers as numbers in the columns of `schema` declared without a type (or
    /// as BLOB), where SQLite keeps text as text: there an exported `12` is the integer 12 and
    /// `"12"` the text.
    mutating func readNumbers(inUntypedColumnsOf schema: TableSchema) {
        untyped = header.map { name in
            let column =
                schema.columns.first { $0.name.hasSameBytes(as: name) }
                ?? schema.columns.first { $0.name.sqliteNameMatches(name) }
            return column?.affinity == .blob
        }
    }

    // MARK: Records

    /// How many fields the current record has.
    var fieldCount: Int { starts.count }

    /// The bytes of field `index` of the current record, unquoted.
    @inline(__always)
    func field(_ index: Int) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: buffer + starts[index], count: ends[index] - starts[index])
    }

    /// Whether field `index` of the current record was quoted, which makes it text.
    @inline(__always)
    func isQuoted(_ index: Int) -> Bool { quoted[index] }

    /// Moves to the next record, checking that it has as many fields as the header; false at
    /// the end of the file.
    mutating func advance() throws -> Bool {
        guard try nextRecord() else { return false }
        guard fieldCount == header.count else {
            throw ImportError(
                file: file, line: recordLine,
                message:
                    "\(fieldCount) field\(fieldCount == 1 ? "" : "s"), but the header has \(header.count) columns")
        }
        return true
    }

    mutating func next() throws -> ImportRecord? {
        guard try advance() else { return nil }
        var values: [DatabaseValue] = []
        values.reserveCapacity(fieldCount)
        for index in 0..<fieldCount {
            let bytes = field(index)
            if quoted[index] {
                values.append(.text(String(decoding: bytes, as: UTF8.self)))
            } else if bytes.isEmpty {
                values.append(.null)
            } else if let blob = Self.blob(bytes) {
                values.append(.blob(blob))
            } else if untyped[index], let number = Self.number(bytes) {
                values.append(number)
            } else {
                values.append(.text(String(decoding: bytes, as: UTF8.self)))
            }
        }
        return ImportRecord(line: recordLine, columns: header, values: values)
    }

    /// The bytes of a literal `X'…'` (or `x'…'`) with an even number of hexadecimal digits.
    static func blob(_ field: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard field.count >= 3, field.count % 2 == 1, field[0] == UInt8(ascii: "X") || field[0] == UInt8(ascii: "x"),
            field[1] == UInt8(ascii: "'"), field[field.count - 1] == UInt8(ascii: "'")
        else { return nil }
        func digit(_ byte: UInt8) -> UInt8? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
            case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
            case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
            default: nil
            }
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity((field.count - 3) / 2)
        var index = 2
        while index < field.count - 1 {
            guard let high = digit(field[index]), let low = digit(field[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    /// An integer when the text is one, else a real when SQLite reads the text as a number
    /// (`1.0` stays a real, `1e999` is infinity); nil for other text.
    static func number(_ field: UnsafeBufferPointer<UInt8>) -> DatabaseValue? {
        // Every text Int64(_:) reads is a numeric literal too.
        guard TextBytes.isNumericLiteral(field) else { return nil }
        let text = String(decoding: field, as: UTF8.self)
        if let integer = Int64(text) { return .integer(integer) }
        return Double(text).map { .real($0) }
    }

    // MARK: Parsing

    /// What parsing a record from `position` came to.
    private enum Parse {
        case record
        case endOfFile
        /// The record goes on past the bytes read so far.
        case needsMore
    }

    /// Reads the next record's fields, skipping blank lines unless the header has one column;
    /// false at the end of the file.
    private mutating func nextRecord() throws -> Bool {
        while true {
            switch try parseRecord() {
            case .record: return true
            case .endOfFile: return false
            case .needsMore: try fill()
            }
        }
    }

    /// Parses one record from `position`, up to `validatedEnd`. Nothing changes unless the whole
    /// record is there, so that a record cut off by the end of the buffer is parsed again, whole,
    /// once more of the file is read.
    private mutating func parseRecord() throws -> Parse {
        let bytes = buffer
        let limit = validatedEnd
        var index = position
        var line = self.line
        // In a one-column file an empty line is a record, its one field NULL: csv export writes
        // a NULL row so. Elsewhere it cannot be a record, and is skipped.
        while header.count != 1, index < limit,
            bytes[index] == UInt8(ascii: "\n") || bytes[index] == UInt8(ascii: "\r")
        {
            if bytes[index] == UInt8(ascii: "\n") { line += 1 }
            index += 1
        }
        if index == limit {
            if !atEndOfFile { return .needsMore }
            (position, self.line) = (index, line)
            return .endOfFile
        }
        let recordLine = line
        starts.removeAll(keepingCapacity: true)
        ends.removeAll(keepingCapacity: true)
        quoted.removeAll(keepingCapacity: true)
        /// Fields with doubled quotes, undoubled once the record is complete.
        var doubled: [Int] = []
        while true {
            if index < limit, bytes[index] == UInt8(ascii: "\"") {
                let opening = line
                index += 1
                let start = index
                var hasDoubled = false
                while true {
                    guard index < limit else {
                        if !atEndOfFile { return .needsMore }
                        throw ImportError(file: file, line: opening, message: "a quoted field is never closed")
                    }
                    let byte = bytes[index]
                    if byte == UInt8(ascii: "\"") {
                        guard index + 1 < limit else {
                            if !atEndOfFile { return .needsMore }
                            break
                        }
                        if bytes[index + 1] == UInt8(ascii: "\"") {
                            hasDoubled = true
                            index += 2
                            continue
                        }
                        let next = bytes[index + 1]
                        guard next == UInt8(ascii: ",") || next == UInt8(ascii: "\n") || next == UInt8(ascii: "\r")
                        else {
                            throw ImportError(
                                file: file, line: line,
                                message:
                                    "text after the closing quote of a field; a field ends at a comma or a line break"
                            )
                        }
                        break
                    }
                    if byte == UInt8(ascii: "\n") { line += 1 }
                    index += 1
                }
                if hasDoubled { doubled.append(starts.count) }
                starts.append(start)
                ends.append(index)
                quoted.append(true)
                index += 1
            } else {
                let start = index
                while index < limit {
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
                if index == limit && !atEndOfFile { return .needsMore }
                starts.append(start)
                ends.append(index)
                quoted.append(false)
            }
            if index >= limit { break }
            let byte = bytes[index]
            index += 1
            if byte == UInt8(ascii: ",") { continue }
            if byte == UInt8(ascii: "\r") {
                // Whether a line feed follows decides the next record's line number.
                if index == limit && !atEndOfFile { return .needsMore }
                if index < limit, bytes[index] == UInt8(ascii: "\n") { index += 1 }
            }
            line += 1
            break
        }
        for field in doubled { undouble(field) }
        (position, self.line, self.recordLine) = (index, line, recordLine)
        return .record
    }

    /// Turns the doubled quotes of a quoted field into single ones, in place.
    private mutating func undouble(_ field: Int) {
        var read = starts[field]
        var write = read
        while read < ends[field] {
            buffer[write] = buffer[read]
            read += buffer[read] == UInt8(ascii: "\"") ? 2 : 1
            write += 1
        }
        ends[field] = write
    }

    /// Reads more of the file, keeping the record under way: it moves to the start of the
    /// buffer, which grows when that record fills half of it.
    private mutating func fill() throws {
        guard let descriptor, !atEndOfFile else { return }
        if position > 0 {
            let kept = end - position
            memmove(buffer, buffer + position, kept)
            bufferOffset += position
            end = kept
            validatedEnd -= position
            position = 0
        }
        if end > capacity / 2 {
            let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity * 2)
            bigger.update(from: buffer, count: end)
            buffer.deallocate()
            buffer = bigger
            storage.buffer = bigger
            capacity *= 2
        }
        while end < capacity {
            let count = read(descriptor, buffer + end, capacity - end)
            if count < 0 {
                if errno == EINTR { continue }
                throw CommandError.failure("cannot read \"\(file)\": \(String(cString: strerror(errno)))")
            }
            if count == 0 {
                atEndOfFile = true
                break
            }
            end += count
        }
        try validate()
    }

    /// Checks the bytes read since the last check, and all of them at the end of the file: an
    /// import file must be UTF-8.
    private mutating func validate() throws {
        let unchecked = UnsafeBufferPointer(start: buffer + validatedEnd, count: end - validatedEnd)
        let invalid: Int
        switch UTF8Validation.check(unchecked) {
        case .valid:
            validatedEnd = end
            return
        case .incomplete(let offset) where !atEndOfFile:
            validatedEnd += offset
            return
        case .invalid(let offset), .incomplete(let offset):
            invalid = validatedEnd + offset
        }
        var line = self.line
        for index in position..<invalid where buffer[index] == UInt8(ascii: "\n") { line += 1 }
        let hex = String(buffer[invalid], radix: 16, uppercase: true)
        throw ImportError(
            file: file, line: line,
            message:
                "not UTF-8 (byte \(bufferOffset + invalid + 1) of the file, 0x\(hex.count == 1 ? "0" + hex : hex)); "
                + "save the file as UTF-8 (it may be in Latin-1 or Windows-1252)")
    }
}
