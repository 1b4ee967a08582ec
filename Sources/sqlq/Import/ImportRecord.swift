import SQLite

/// One row read from an import file: column names, values, and the line it starts on.
struct ImportRecord {
    var line: Int
    var columns: [String]
    var values: [DatabaseValue]
}

/// Reads the rows of an import file one at a time.
protocol RecordReader {
    /// The next row, or nil at the end of the file. Throws ``ImportError`` for malformed input.
    mutating func next() throws -> ImportRecord?
    /// How many bytes of the file have been read, for the progress bar.
    var bytesRead: Int { get }
}
