extension OutputFormat {
    /// Writes rows held in memory, whatever database they came from, in this format: the row
    /// source of PostgreSQL's results, through the same writers as SQLite's. Without
    /// `showsRowCount`, a table has no "(N rows)" line.
    func write(
        columns: [String], rows: [[Cell.Owned]], to output: OutputStream, style: TextStyle,
        showsRowCount: Bool = true
    ) {
        output.withBuffer { out in
            switch self {
            case .csv: Self.write(DelimitedWriter(kind: .csv), columns, rows, &out)
            case .tsv: Self.write(DelimitedWriter(kind: .tsv), columns, rows, &out)
            case .json: Self.write(JSONWriter(linePerRow: false), columns, rows, &out)
            case .ndjson: Self.write(JSONWriter(linePerRow: true), columns, rows, &out)
            case .table:
                var layout = ColumnLayout(tableHeader: columns)
                for row in rows { layout.measure(row) }
                Self.write(
                    TableWriter(layout: layout.finished(), style: style, showsRowCount: showsRowCount), columns, rows,
                    &out)
            case .markdown:
                var layout = ColumnLayout(markdownHeader: columns)
                for row in rows { layout.measure(row) }
                Self.write(MarkdownWriter(layout: layout.finished()), columns, rows, &out)
            }
        }
    }

    private static func write(
        _ encoder: some RowEncoder, _ columns: [String], _ rows: [[Cell.Owned]], _ out: inout ByteBuffer
    ) {
        var encoder = encoder
        encoder.begin(columns: columns, &out)
        for row in rows { encoder.write(row: row, &out) }
        encoder.end(rowCount: rows.count, &out)
    }
}
