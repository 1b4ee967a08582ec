#if HTTP
    import ArgumentParser
    import SQLite

    /// One page of a table view, fetched at once so that a live value and each request read the
    /// same: the rows, the count of every matching row, the facets and the foreign keys' labels.
    struct TableViewRequest: FetchKeyRequest {
        /// The table as the schema spells it.
        var table: String
        var parameters: ViewParameters
        /// The rows of the page and one more, the facets and the filter they count within.
        var query: TableQuery
        var offset: Int
        var foreignKeys: [ForeignKeyLabel]
        /// The table's `INTEGER PRIMARY KEY`, by which a row's page is found.
        var rowIDColumn: String?
        var timeLimit: Duration

        /// The view of `table` that `parameters` describe, every name checked against the schema.
        init(table: String, parameters: ViewParameters, db: Database, timeLimit: Duration) throws {
            let arguments = try parameters.queryArguments(table: table)
            let options: QueryOptions
            do {
                options = try QueryOptions.parse(arguments)
            } catch {
                throw ServeError(.badRequest, Self.optionMessage(QueryOptions.message(for: error)))
            }
            query = try options.makeQuery(db)
            self.table = query.request.tableName
            self.parameters = parameters
            offset = try parameters.offset()
            foreignKeys = try ForeignKeyLabel.all(of: self.table, in: db)
            rowIDColumn = try ForeignKeyLabel.rowIDColumn(of: self.table, in: db)
            self.timeLimit = timeLimit
        }

        /// An option's message with the option named as the query string names it.
        private static func optionMessage(_ message: String) -> String {
            var message = message
            for (option, parameter) in [
                ("--where", "where="), ("--sort", "sort="), ("--columns", "columns="), ("--facet", "facet="),
                ("--search", "search="),
            ] {
                message = message.replacing(option, with: parameter)
            }
            return message
        }

        func fetch(_ db: Database) throws -> TablePage {
            try QueryTimeLimit.run(db, limit: timeLimit) {
                var result = try ResultSet.fetch(db, sql: query.sql, arguments: query.arguments)
                var seen: Set<String> = []
                for column in result.columns where !seen.insert(column).inserted {
                    throw ServeError(
                        .badRequest, "the column \"\(column)\" is selected twice; name each column once in columns=")
                }
                let hasMore = result.rows.count > parameters.size
                if hasMore { result.rows.removeLast(result.rows.count - parameters.size) }
                var countSQL = "SELECT count(*) FROM " + String.quotedIdentifier(table)
                var countArguments: [SQLiteValue] = []
                if let filter = query.filter {
                    countSQL += " WHERE " + filter.sql
                    countArguments = filter.arguments
                }
                let count = try db.fetchOne(Int.self, countSQL, countArguments) ?? 0
                var labels: [String: [String: String]] = [:]
                for key in foreignKeys {
                    guard let index = result.columns.firstIndex(where: { $0.sqliteNameMatches(key.column) }) else {
                        continue
                    }
                    let values = Set(result.rows.map { $0[index] }.filter { $0 != .null })
                    let found = try key.fetchLabels(values, in: db)
                    if !found.isEmpty { labels[result.columns[index]] = found }
                }
                let facets = try query.fetchFacets(db)
                // A facet's values get labels too, whether or not the page shows its column.
                for facet in facets {
                    guard let key = foreignKeys.first(where: { $0.column.sqliteNameMatches(facet.column) }) else {
                        continue
                    }
                    let found = try key.fetchLabels(Set(facet.values.map(\.value).filter { $0 != .null }), in: db)
                    guard !found.isEmpty else { continue }
                    let column = labels.keys.first { $0.sqliteNameMatches(facet.column) } ?? facet.column
                    labels[column, default: [:]].merge(found) { shown, _ in shown }
                }
                return TablePage(
                    table: table, columns: result.columns, rows: result.rows, count: count,
                    facets: facets,
                    next: hasMore ? PageToken.make(offset: offset + parameters.size) : nil, labels: labels)
            }
        }
    }

    /// A page of a table view: what `TABLE.json` returns and `TABLE.sse` streams.
    struct TablePage: Hashable, Sendable, Encodable {
        var table: String
        var columns: [String]
        var rows: [[SQLiteValue]]
        /// How many rows match the filter and the search, on every page.
        var count: Int
        var facets: [Facet.Counts]
        /// The `after=` token of the next page; nil on the last.
        var next: String?
        /// For each foreign-key column shown or faceted, the parent rows' labels by key (the value
        /// as text), for the values of the rows and of the facets.
        var labels: [String: [String: String]]

        private enum CodingKeys: String, CodingKey {
            case table, columns, rows, count, facets, next, labels
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(table, forKey: .table)
            try container.encode(columns, forKey: .columns)
            try container.encode(rows.map { JSONRow(columns: columns, values: $0) }, forKey: .rows)
            try container.encode(count, forKey: .count)
            try container.encode(JSONFacets(facets), forKey: .facets)
            try container.encode(next, forKey: .next)
            try container.encode(labels, forKey: .labels)
        }
    }
#endif
