import SQLite

/// Writes a whole result, held in memory, in one output format: what `watch`, `tables` and
/// `schema` print.
protocol RowWriter {
    func write(_ result: ResultSet)
}

/// Formats rows into a ``ByteBuffer``, one cell at a time, straight from the values' bytes.
///
/// The streaming formats write each row as it comes. The table and Markdown formats are given the
/// width and alignment of every column before the first row (see ``ColumnLayout``).
protocol RowEncoder {
    mutating func begin(columns: [String], _ out: inout ByteBuffer)
    mutating func beginRow(_ out: inout ByteBuffer)
    mutating func cell(_ cell: Cell, column: Int, _ out: inout ByteBuffer)
    mutating func endRow(_ out: inout ByteBuffer)
    mutating func end(rowCount: Int, _ out: inout ByteBuffer)
    /// Whether the format can write text that is not UTF-8 (``Cell/invalidText(_:)``) without
    /// changing it. Rows are refused, with an ``InvalidTextError``, by formats that cannot.
    static var writesInvalidText: Bool { get }
}

extension RowEncoder {
    static var writesInvalidText: Bool { true }
}

extension RowEncoder {
    /// Writes one row of values held in memory.
    mutating func write(row: [DatabaseValue], _ out: inout ByteBuffer) {
        beginRow(&out)
        for (column, value) in row.enumerated() {
            Cell.withValue(value) { cell(_: $0, column: column, &out) }
        }
        endRow(&out)
        out.flushIfFull()
    }

    /// Writes one row copied from a statement.
    mutating func write(row: [Cell.Owned], _ out: inout ByteBuffer) {
        beginRow(&out)
        for (column, value) in row.enumerated() {
            Cell.withOwned(value) { cell(_: $0, column: column, &out) }
        }
        endRow(&out)
        out.flushIfFull()
    }
}

/// A ``RowWriter`` for any format.
struct ResultWriter: RowWriter {
    let format: OutputFormat
    let output: OutputStream
    let style: TextStyle
    var showsRowCount = true

    func write(_ result: ResultSet) {
        output.withBuffer { out in
            switch format {
            case .csv: Self.write(result, DelimitedWriter(kind: .csv), &out)
            case .tsv: Self.write(result, DelimitedWriter(kind: .tsv), &out)
            case .json: Self.write(result, JSONWriter(linePerRow: false), &out)
            case .ndjson: Self.write(result, JSONWriter(linePerRow: true), &out)
            case .markdown:
                var layout = ColumnLayout(markdownHeader: result.columns)
                for row in result.rows { layout.measure(row) }
                Self.write(result, MarkdownWriter(layout: layout.finished()), &out)
            case .table:
                var layout = ColumnLayout(tableHeader: result.columns)
                for row in result.rows { layout.measure(row) }
                Self.write(
                    result, TableWriter(layout: layout.finished(), style: style, showsRowCount: showsRowCount), &out)
            }
        }
    }

    private static func write(_ result: ResultSet, _ encoder: some RowEncoder, _ out: inout ByteBuffer) {
        var encoder = encoder
        encoder.begin(columns: result.columns, &out)
        for row in result.rows { encoder.write(row: row, &out) }
        encoder.end(rowCount: result.rows.count, &out)
    }
}

extension DatabaseValue {
    /// The value as text in a cell: numbers as Swift prints them (the shortest form that reads
    /// back to the same value), text as is, blobs in SQL's `X'…'` notation, NULL as `NULL`.
    var cellText: String {
        switch self {
        case .null: "NULL"
        case .integer(let value): String(value)
        case .real(let value): String(value)
        case .text(let value): value
        case .blob: description
        }
    }
}
