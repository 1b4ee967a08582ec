#if HTTP
    import SQLite

    /// One row of a table, found by its rowid, with its foreign keys' labels and the rows of
    /// other tables that refer to it.
    struct RowRequest: FetchKeyRequest {
        var table: String
        var rowID: Int64
        /// A name that reads the rowid, which no column shadows (see ``ForeignKeyLabel/rowIDName(of:in:)``).
        var rowIDName: String
        var foreignKeys: [ForeignKeyLabel]
        /// The single-column foreign keys of other tables that refer to this table.
        var referrers: [Referrer]
        var timeLimit: Duration

        /// A foreign key that refers to this table: `table(column) → key`.
        struct Referrer: Hashable, Sendable {
            var table: String
            var column: String
            var key: String
        }

        init(table: String, rowID: String, db: Database, timeLimit: Duration) throws {
            let schema = try TableSchema(db, table: table)
            guard let rowID = Int64(rowID) else {
                throw ServeError(
                    .badRequest, "\"\(rowID)\" is not a rowid: a row's page is /TABLE/ROWID, a whole number")
            }
            guard
                try db.fetchOne(
                    Int.self, "SELECT type = 'table' FROM sqlite_master WHERE name = ?", [.text(schema.name)]) == 1
            else {
                throw ServeError(.badRequest, "\"\(schema.name)\" is a view: its rows have no rowid to find them by")
            }
            // SQLite's own "no such column: rowid" would not say what to do instead.
            if (try? db.fetchOne(
                Int.self, "SELECT wr FROM pragma_table_list WHERE schema = 'main' AND name = ?", [.text(schema.name)]))
                == 1
            {
                let key = try db.fetchAll(
                    String.self, "SELECT name FROM pragma_table_info(?) WHERE pk > 0 ORDER BY pk", [.text(schema.name)])
                let example = key.map { "\($0) = …" }.joined(separator: " and ")
                throw ServeError(
                    .badRequest,
                    "\"\(schema.name)\" is a WITHOUT ROWID table: its rows have no rowid for /\(schema.name)/ROWID "
                        + "to find them by; find a row by its primary key (\(key.joined(separator: ", "))) with a filter, "
                        + "as in /\(schema.name)?where=\(example)")
            }
            guard let rowIDName = try ForeignKeyLabel.rowIDName(of: schema.name, in: db) else {
                let example = schema.columns.first.map { "\($0.name) = …" } ?? "column = …"
                throw ServeError(
                    .badRequest,
                    "\"\(schema.name)\" has columns named rowid, _rowid_ and oid, which hide its rowids: "
                        + "/\(schema.name)/ROWID has no name to find a row by; find a row by its columns with a "
                        + "filter, as in /\(schema.name)?where=\(example), or rename one of these columns")
            }
            self.table = schema.name
            self.rowID = rowID
            self.rowIDName = rowIDName
            foreignKeys = try ForeignKeyLabel.all(of: schema.name, in: db)
            var referrers: [Referrer] = []
            for other in try db.tableNames() {
                for key in try ForeignKeyLabel.all(of: other, in: db) where key.parent.sqliteNameMatches(schema.name) {
                    referrers.append(Referrer(table: other, column: key.column, key: key.key))
                }
            }
            self.referrers = referrers
            self.timeLimit = timeLimit
        }

        func fetch(_ db: Database) throws -> RowPage {
            try QueryTimeLimit.run(db, limit: timeLimit) {
                var budget = ByteBudget.serve
                let result = try ResultSet.fetch(
                    db,
                    sql:
                        "SELECT * FROM \(String.quotedIdentifier(table)) WHERE \(String.quotedIdentifier(rowIDName)) = ?",
                    arguments: [.integer(rowID)], budget: &budget)
                guard let row = result.rows.first else {
                    return RowPage(
                        table: table, rowID: rowID, columns: result.columns, row: nil, labels: [:], referrers: [])
                }
                var labels: [String: [String: String]] = [:]
                for key in foreignKeys {
                    guard let index = result.columns.firstIndex(where: { $0.sqliteNameMatches(key.column) }),
                        row[index] != .null
                    else { continue }
                    let found = try key.fetchLabels([row[index]], in: db)
                    if !found.isEmpty { labels[result.columns[index]] = found }
                }
                var counts: [RowPage.Referrers] = []
                for referrer in referrers {
                    let value: DatabaseValue =
                        referrer.key.sqliteNameMatches(rowIDName)
                        ? .integer(rowID)
                        : result.columns.firstIndex { $0.sqliteNameMatches(referrer.key) }.map { row[$0] } ?? .null
                    guard value != .null else { continue }
                    let count =
                        try db.fetchOne(
                            Int.self,
                            "SELECT count(*) FROM \(String.quotedIdentifier(referrer.table)) WHERE \(String.quotedIdentifier(referrer.column)) = ?",
                            [value]) ?? 0
                    counts.append(
                        RowPage.Referrers(table: referrer.table, column: referrer.column, value: value, count: count))
                }
                return RowPage(
                    table: table, rowID: rowID, columns: result.columns, row: row, labels: labels, referrers: counts,
                    invalidText: result.invalidText[0] ?? [:])
            }
        }
    }

    /// A row's page: what `TABLE/ROWID.json` returns and `.sse` streams.
    struct RowPage: Hashable, Sendable, Encodable {
        var table: String
        var rowID: Int64
        var columns: [String]
        /// nil when no row has the rowid (any more).
        var row: [DatabaseValue]?
        var labels: [String: [String: String]]
        var referrers: [Referrers]
        /// The row's text that is not UTF-8, as stored, by column: HTML shows it, JSON refuses it.
        var invalidText: [Int: [UInt8]] = [:]

        /// How many rows of `table` refer to this one through `column`.
        struct Referrers: Hashable, Sendable, Encodable {
            var table: String
            var column: String
            var value: DatabaseValue
            var count: Int

            private enum CodingKeys: String, CodingKey { case table, column, value, count }

            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(table, forKey: .table)
                try container.encode(column, forKey: .column)
                try container.encode(JSONCell(value: value), forKey: .value)
                try container.encode(count, forKey: .count)
            }
        }

        private enum CodingKeys: String, CodingKey { case table, rowid, columns, row, labels, referrers }

        func encode(to encoder: any Encoder) throws {
            if !invalidText.isEmpty { try InvalidTextRefusal.check([0: invalidText], columns: columns) }
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(table, forKey: .table)
            try container.encode(rowID, forKey: .rowid)
            try container.encode(columns, forKey: .columns)
            try container.encode(row.map { JSONRow(columns: columns, values: $0) }, forKey: .row)
            try container.encode(labels, forKey: .labels)
            try container.encode(referrers, forKey: .referrers)
        }
    }
#endif
