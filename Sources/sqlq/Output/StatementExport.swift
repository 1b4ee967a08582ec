import SQLite

extension OutputFormat {
    /// How many rows the table and Markdown formats hold to lay out a result in one pass. A
    /// longer result is measured row by row without being kept, then run again to be written;
    /// on a terminal, a table is laid out from these first rows and the rest follow at once.
    static let layoutWindow = 10_000

    /// Runs `sql` and writes its rows to `output` in this format as SQLite reads them, from its
    /// column buffers, in memory that does not grow with the number of rows.
    func write(
        _ db: Database, sql: String, arguments: [DatabaseValue], to output: OutputStream, style: TextStyle
    ) throws {
        let statement = try db.makeStatement(sql)
        try statement.bind(arguments)
        defer { statement.reset() }
        let columns = statement.columnNames
        let isTerminal = output.isTerminal
        try output.withBuffer { out in
            switch self {
            case .csv: try Self.stream(DelimitedWriter(kind: .csv), statement, columns, &out)
            case .tsv: try Self.stream(DelimitedWriter(kind: .tsv), statement, columns, &out)
            case .json: try Self.stream(JSONWriter(linePerRow: false), statement, columns, &out)
            case .ndjson: try Self.stream(JSONWriter(linePerRow: true), statement, columns, &out)
            case .table, .markdown:
                try writeLaidOut(statement, columns, style: style, isTerminal: isTerminal, &out)
            }
        }
    }

    /// Writes every row the statement has left, and the end.
    private static func stream<Encoder: RowEncoder>(
        _ encoder: Encoder, _ statement: Statement, _ columns: [String], begun: Bool = false, rowCount: Int = 0,
        _ out: inout ByteBuffer
    ) throws {
        var encoder = encoder
        if !begun { encoder.begin(columns: columns, &out) }
        let handle = statement.sqliteHandle
        let count = Int32(columns.count)
        var rows = rowCount
        while try statement.step() {
            encoder.beginRow(&out)
            var column: Int32 = 0
            while column < count {
                try Cell.withColumn(handle, column) { cell in
                    if !Encoder.writesInvalidText, case .invalidText(let bytes) = cell {
                        throw InvalidTextError(row: rows + 1, column: columns[Int(column)], bytes: Array(bytes))
                    }
                    encoder.cell(cell, column: Int(column), &out)
                }
                column += 1
            }
            encoder.endRow(&out)
            out.flushIfFull()
            rows += 1
        }
        encoder.end(rowCount: rows, &out)
    }

    private func writeLaidOut(
        _ statement: Statement, _ columns: [String], style: TextStyle, isTerminal: Bool, _ out: inout ByteBuffer
    ) throws {
        var layout =
            self == .table ? ColumnLayout(tableHeader: columns) : ColumnLayout(markdownHeader: columns)
        var firstRows: [[Cell.Owned]] = []
        var complete = true
        let handle = statement.sqliteHandle
        while try statement.step() {
            let row = (0..<Int32(columns.count)).map { Cell.Owned(handle, $0) }
            layout.measure(row)
            firstRows.append(row)
            if firstRows.count == Self.layoutWindow {
                complete = false
                break
            }
        }
        func write(_ rows: [[Cell.Owned]], more: Bool) throws {
            if self == .table {
                let encoder = TableWriter(layout: layout.finished(), style: style)
                try Self.writeFirst(encoder, rows, statement, columns, more: more, &out)
            } else {
                let encoder = MarkdownWriter(layout: layout.finished())
                try Self.writeFirst(encoder, rows, statement, columns, more: more, &out)
            }
        }
        if complete || (self == .table && isTerminal) {
            try write(firstRows, more: !complete)
            return
        }
        firstRows = []
        let count = Int32(columns.count)
        while try statement.step() {
            var column: Int32 = 0
            while column < count {
                Cell.withColumn(handle, column) { layout.measure($0, column: Int(column)) }
                column += 1
            }
        }
        // The bindings stay; the read transaction keeps the second run on the same rows.
        statement.reset()
        try write([], more: true)
    }

    /// Writes the header and `rows`, then the rows the statement has left when there are `more`.
    private static func writeFirst<Encoder: RowEncoder>(
        _ encoder: Encoder, _ rows: [[Cell.Owned]], _ statement: Statement, _ columns: [String], more: Bool,
        _ out: inout ByteBuffer
    ) throws {
        var encoder = encoder
        encoder.begin(columns: columns, &out)
        for row in rows { encoder.write(row: row, &out) }
        if more {
            try stream(encoder, statement, columns, begun: true, rowCount: rows.count, &out)
        } else {
            encoder.end(rowCount: rows.count, &out)
        }
    }
}
