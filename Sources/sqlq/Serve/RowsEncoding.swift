#if HTTP
    import SQLite

    /// A page's rows as `sqlq query` writes them in NDJSON and CSV, with its own writers.
    enum RowsEncoding {
        static func ndjson(_ page: TablePage) -> [UInt8] {
            encode(page, JSONWriter(linePerRow: true))
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
            for row in page.rows {
                encoder.beginRow(&out)
                for (column, value) in row.enumerated() {
                    Cell.withValue(value) { encoder.cell($0, column: column, &out) }
                }
                encoder.endRow(&out)
            }
            encoder.end(rowCount: page.rows.count, &out)
            return Array(UnsafeBufferPointer(start: out.start, count: out.count))
        }
    }
#endif
