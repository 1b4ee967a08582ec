#if HTTP
    import SQLite

    /// A page's rows as `sqlq query` writes them in NDJSON and CSV, with its own writers.
    enum RowsEncoding {
        /// Throws ``InvalidTextRefusal``'s error for text that is not UTF-8, as `query` refuses it.
        static func ndjson(_ page: TablePage) throws -> [UInt8] {
            try InvalidTextRefusal.check(page.invalidText, columns: page.columns)
            return encode(page, JSONWriter(linePerRow: true))
        }

        static func csv(_ page: TablePage) -> [UInt8] {
            encode(page, DelimitedWriter(kind: .csv))
        }

        private static func encode(_ page: TablePage, _ encoder: some RowEncoder) -> [UInt8] {
            var encoder = encoder
            // Kept in memory (no file descriptor), and never flushed: a page is bounded.
            var out = ByteBuffer(fileDescriptor: -1, capacity: 4096)
            defer { out.deallocate() }
            encoder.begin(columns: page.columns, &out)
            for (index, row) in page.rows.enumerated() {
                encoder.beginRow(&out)
                let invalid = page.invalidText[index]
                for (column, value) in row.enumerated() {
                    if let bytes = invalid?[column] {
                        bytes.withUnsafeBufferPointer { encoder.cell(.invalidText($0), column: column, &out) }
                    } else {
                        Cell.withValue(value) { encoder.cell($0, column: column, &out) }
                    }
                }
                encoder.endRow(&out)
            }
            encoder.end(rowCount: page.rows.count, &out)
            return Array(UnsafeBufferPointer(start: out.start, count: out.count))
        }
    }

    /// The refusal of text that is not UTF-8 by a JSON answer, which cannot hold it unchanged, as
    /// `sqlq query --format json` refuses it: 422, naming the first such cell.
    enum InvalidTextRefusal {
        /// Throws for the first row (and its first column) of `invalidText`.
        static func check(_ invalidText: [Int: [Int: [UInt8]]], columns: [String]) throws {
            guard let row = invalidText.keys.min(), let cells = invalidText[row], let column = cells.keys.min(),
                let bytes = cells[column]
            else { return }
            let offset = UTF8Validation.firstInvalidByte(in: bytes) ?? 0
            let hex = String(bytes[offset], radix: 16, uppercase: true)
            let name = column < columns.count ? columns[column] : String(column + 1)
            throw ServeError(
                .unprocessableContent,
                "row \(row + 1), column \"\(name)\": the text is not UTF-8 (byte \(offset + 1) is 0x"
                    + (hex.count == 1 ? "0" + hex : hex) + "), and JSON cannot hold it unchanged; "
                    + ".csv writes the bytes as stored, and columns= can leave the column out")
        }
    }
#endif
