import SQLite

/// Writes the counts of `--facet` with the rows, in each format's shape:
///
/// - table and markdown: the rows, then one small table per facet (the column and `count`),
///   followed by a line when the column has more values than shown;
/// - json: `{"facets": {"status": {"values": [{"value": "open", "count": 3}], "more": false}},
///   "rows": [...]}`;
/// - ndjson: the rows, then one line per facet:
///   `{"$facet": "status", "values": [...], "more": false}`;
/// - csv and tsv: the facet counts instead of the rows, one table with the header
///   `facet,value,count`; a facet with more values than shown ends with a line whose value and
///   count are empty.
enum FacetWriter {
    /// Writes the rows of `query` and its facets, both read in `db`'s current transaction.
    static func write(
        _ db: Database, _ query: TableQuery, format: OutputFormat, to output: OutputStream, style: TextStyle
    ) throws {
        try write(try query.fetchFacets(db), format: format, to: output, style: style) {
            try format.write(db, sql: query.sql, arguments: query.arguments, to: output, style: style)
        }
    }

    /// Writes a result held in memory, rows and facets, as `watch` shows it.
    static func write(
        _ result: ResultSet, format: OutputFormat, to output: OutputStream, style: TextStyle, showsRowCount: Bool
    ) {
        write(result.facets, format: format, to: output, style: style) {
            ResultWriter(format: format, output: output, style: style, showsRowCount: showsRowCount).write(result)
        }
    }

    /// Writes `facets` with the rows that `writeRows` writes, whatever database both came from.
    static func write(
        _ facets: [Facet.Counts], format: OutputFormat, to output: OutputStream, style: TextStyle,
        rows writeRows: () throws -> Void
    ) rethrows {
        switch format {
        case .csv, .tsv:
            output.withBuffer { writeDelimited(facets, kind: format == .csv ? .csv : .tsv, &$0) }
        case .json:
            output.withBuffer { out in
                out.append("{\"facets\":")
                writeJSONObject(facets, &out)
                out.append(",\n\"rows\":")
            }
            try writeRows()
            output.write("}\n")
        case .ndjson, .table, .markdown:
            try writeRows()
            writeAfterRows(facets, format: format, output: output, style: style)
        }
    }

    /// How many lines the table and Markdown formats take for `facets`, so that `watch` leaves
    /// room for them on a terminal.
    static func lineCount(_ facets: [Facet.Counts]) -> Int {
        facets.reduce(0) { $0 + 3 + $1.values.count + ($1.hasMore ? 2 : 0) }
    }

    private static func writeAfterRows(
        _ facets: [Facet.Counts], format: OutputFormat, output: OutputStream, style: TextStyle
    ) {
        for facet in facets {
            switch format {
            case .ndjson:
                output.withBuffer { out in
                    out.append("{\"$facet\":")
                    appendJSONString(facet.column, &out)
                    out.append(",")
                    appendJSONValues(facet, &out)
                    out.append("}\n")
                }
            case .table, .markdown:
                output.writeLine()
                format.write(
                    columns: [facet.column, "count"], rows: facet.values.map { [$0.cell, .value(.integer($0.count))] },
                    to: output, style: style, showsRowCount: false)
                if facet.hasMore {
                    let note = "More values than these \(facet.values.count); --facet-size shows more."
                    if format == .markdown {
                        output.writeLine()
                        output.writeLine("_" + note + "_")
                    } else {
                        output.writeLine(style.dim("(" + note + ")"))
                    }
                }
            case .json, .csv, .tsv:
                break
            }
        }
    }

    private static func writeDelimited(_ facets: [Facet.Counts], kind: DelimitedWriter.Kind, _ out: inout ByteBuffer) {
        var encoder = DelimitedWriter(kind: kind)
        encoder.begin(columns: ["facet", "value", "count"], &out)
        for facet in facets {
            for value in facet.values {
                encoder.write(row: [.value(.text(facet.column)), value.cell, .value(.integer(value.count))], &out)
            }
            if facet.hasMore { encoder.write(row: [.text(facet.column), .null, .null], &out) }
        }
        encoder.end(rowCount: 0, &out)
    }

    /// `{"status": {"values": [...], "more": false}, ...}`
    private static func writeJSONObject(_ facets: [Facet.Counts], _ out: inout ByteBuffer) {
        out.append("{")
        for (index, facet) in facets.enumerated() {
            if index > 0 { out.append(",") }
            out.append("\n")
            appendJSONString(facet.column, &out)
            out.append(":{")
            appendJSONValues(facet, &out)
            out.append("}")
        }
        out.append(facets.isEmpty ? "}" : "\n}")
    }

    /// `"values": [{"value": …, "count": …}, …], "more": …`, values written as `JSONWriter`
    /// writes them in rows.
    private static func appendJSONValues(_ facet: Facet.Counts, _ out: inout ByteBuffer) {
        var writer = JSONWriter(linePerRow: true)
        writer.begin(columns: ["value"], &out)
        out.append("\"values\":[")
        for (index, value) in facet.values.enumerated() {
            out.append(index == 0 ? "{" : ",{")
            Cell.withOwned(value.cell) { writer.cell($0, column: 0, &out) }
            out.append(",\"count\":")
            out.appendDecimal(value.count)
            out.append("}")
        }
        out.append(facet.hasMore ? "],\"more\":true" : "],\"more\":false")
    }

    private static func appendJSONString(_ text: String, _ out: inout ByteBuffer) {
        var text = text
        text.withUTF8 { JSONWriter.appendString($0, &out) }
    }
}
