#if HTTP
    import ArgumentParser
    import SQLite

    /// One page of a table view, fetched at once so that a live value and each request read the
    /// same: the rows, the count of every matching row, the facets and the foreign keys' labels.
    struct TableViewRequest: FetchKeyRequest {
        /// The table as the schema spells it.
        var table: String
        var parameters: ViewParameters
        /// The view's query, the facets and the filter they count within.
        var query: TableQuery
        /// The rows of the page and one more: the view's query from where the token says, in
        /// the keyset order when the view has one, selecting that order's keys after the view's
        /// columns.
        var rows: QueryInterfaceRequest<Row>
        /// The keyset order of the view, or nil when it pages by offset.
        var order: KeysetOrder?
        /// The row the page starts at, for a page reached by an offset token; 0 otherwise.
        var offset: Int
        var foreignKeys: [ForeignKeyLabel]
        /// The table's `INTEGER PRIMARY KEY`, by which a row's page is found.
        var rowIDColumn: String?
        /// The facets whose column is declared a number type, whose text values a facet link
        /// finds with a pattern (see ``FilterSnippet/equals(_:_:holdsNumbers:)``).
        var numberFacets: Set<String> = []
        var timeLimit: Duration

        /// The view of `table` that `parameters` describe, every name checked against the schema.
        init(table: String, parameters: ViewParameters, db: Database, timeLimit: Duration) throws {
            let token = try parameters.after.map(PageToken.init)
            offset = token?.rowsBefore ?? 0
            let arguments = parameters.queryArguments(table: table, offset: offset)
            let options: QueryOptions
            do {
                options = try QueryOptions.parse(arguments)
            } catch {
                throw ServeError(.badRequest, Self.optionMessage(QueryOptions.message(for: error)))
            }
            query = try options.makeQuery(db)
            self.table = query.request.tableName
            self.parameters = parameters
            rows = query.request
            rowIDColumn = try ForeignKeyLabel.rowIDColumn(of: self.table, in: db)
            switch try KeysetOrder.make(query, searched: parameters.search != nil, rowIDColumn: rowIDColumn, db: db) {
            case .success(let order):
                self.order = order
                rows = rows.sort(order.orderings)
                if let after = try order.condition(for: token) { rows = rows.filter(after) }
                let selection = rows.select.selection.isEmpty ? [Self.allColumns] : rows.select.selection
                rows = rows.select(selection + order.keys.map(\.expression))
            case .failure(let reason):
                order = nil
                try reason.check(token)
            }
            foreignKeys = try ForeignKeyLabel.all(of: self.table, in: db)
            if !query.facets.isEmpty {
                let schema = try TableSchema(db, table: self.table)
                for facet in query.facets
                where try Facet.resolveColumn(facet.column, schema: schema, db: db).column.affinity.holdsNumbers {
                    numberFacets.insert(facet.column)
                }
            }
            self.timeLimit = timeLimit
        }

        /// `*`, which the keyset order's keys follow.
        private static let allColumns = SQLExpression(SQLFragment([.sql("*")]), precedence: .atom)

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
                var budget = ByteBudget.serve
                var page = try rowsPage(db, budget: &budget)
                try addFacets(to: &page, db, budget: &budget)
                return page
            }
        }

        /// The page without its facets (``TablePage/facets`` empty): what the HTML page sends
        /// before its facets are counted.
        func fetchRows(_ db: Database) throws -> TablePage {
            try QueryTimeLimit.run(db, limit: timeLimit) {
                var budget = ByteBudget.serve
                return try rowsPage(db, budget: &budget)
            }
        }

        /// `page`, as ``fetchRows(_:)`` fetched it, with its facets and their labels, within
        /// `timeLimit`: what is left of the request's time limit.
        func fetchFacets(for page: TablePage, _ db: Database, timeLimit: Duration) throws -> TablePage {
            try QueryTimeLimit.run(db, limit: timeLimit) {
                var budget = ByteBudget.serve
                var page = page
                try addFacets(to: &page, db, budget: &budget)
                return page
            }
        }

        /// Whether the view counts facets.
        var hasFacets: Bool { !query.facets.isEmpty }

        private func rowsPage(_ db: Database, budget: inout ByteBudget) throws -> TablePage {
            var result = try ResultSet.fetch(db, sql: rows.sql, arguments: rows.arguments, budget: &budget)
            let keyCount = order?.keys.count ?? 0
            let hasMore = result.rows.count > parameters.size
            if hasMore { result.rows.removeLast(result.rows.count - parameters.size) }
            let lastKeys = result.rows.last.map { Array($0.suffix(keyCount)) }
            if keyCount > 0 {
                result.columns.removeLast(keyCount)
                for index in result.rows.indices { result.rows[index].removeLast(keyCount) }
            }
            var seen: Set<String> = []
            for column in result.columns where !seen.insert(column).inserted {
                throw ServeError(
                    .badRequest, "the column \"\(column)\" is selected twice; name each column once in columns=")
            }
            var next: String?
            if hasMore, let order, let lastKeys {
                next = try nextToken(order: order, after: lastKeys, db)
            } else if hasMore {
                next = PageToken.offset(offset + parameters.size).text
            }
            var count: Int?
            if parameters.count {
                var countSQL = "SELECT count(*) FROM " + String.quotedIdentifier(table)
                var countArguments: [DatabaseValue] = []
                if let filter = query.filter {
                    countSQL += " WHERE " + filter.sql
                    countArguments = filter.arguments
                }
                count = try db.fetchOne(Int.self, countSQL, countArguments) ?? 0
            }
            var labels: [String: [String: String]] = [:]
            for key in foreignKeys {
                guard let index = result.columns.firstIndex(where: { $0.sqliteNameMatches(key.column) }) else {
                    continue
                }
                let values = Set(result.rows.map { $0[index] }.filter { $0 != .null })
                let found = try key.fetchLabels(values, in: db)
                if !found.isEmpty { labels[result.columns[index]] = found }
            }
            // Only the page's rows and columns: not the row after it, nor the keyset's keys.
            var invalidText: [Int: [Int: [UInt8]]] = [:]
            for (row, cells) in result.invalidText where row < result.rows.count {
                let shown = cells.filter { $0.key < result.columns.count }
                if !shown.isEmpty { invalidText[row] = shown }
            }
            return TablePage(
                table: table, columns: result.columns, rows: result.rows, count: count,
                facets: [],
                next: next, labels: labels, invalidText: invalidText)
        }

        private func addFacets(to page: inout TablePage, _ db: Database, budget: inout ByteBudget) throws {
            page.facets = try query.fetchFacets(db, budget: &budget)
            // A facet's values get labels too, whether or not the page shows its column.
            for facet in page.facets {
                guard let key = foreignKeys.first(where: { $0.column.sqliteNameMatches(facet.column) }) else {
                    continue
                }
                let found = try key.fetchLabels(Set(facet.values.map(\.value).filter { $0 != .null }), in: db)
                guard !found.isEmpty else { continue }
                let column = page.labels.keys.first { $0.sqliteNameMatches(facet.column) } ?? facet.column
                page.labels[column, default: [:]].merge(found) { shown, _ in shown }
            }
        }

        /// The token of the page after the row whose keys are `values`: a keyset token, or where
        /// a key's value is too long for one, the offset of the next row now, counted.
        private func nextToken(order: KeysetOrder, after values: [DatabaseValue], _ db: Database) throws -> String {
            let token = PageToken.keyset(fingerprint: order.fingerprint, values: values).text
            if token.utf8.count <= PageToken.maximumLength { return token }
            var upToRow = Table(table).all()
            if let filter = query.filter { upToRow = upToRow.filter(filter) }
            let after = order.condition(after: values)
            // The condition is NULL for some rows before it, which are counted too.
            upToRow = upToRow.filter(
                SQLExpression(SQLFragment(after.fragment.segments + [.sql(" IS NOT 1")]), precedence: .comparison))
            let count = try db.fetchOne(Int.self, upToRow.countSQL, upToRow.countArguments) ?? 0
            return PageToken.keysetOffset(fingerprint: order.fingerprint, offset: count).text
        }
    }

    /// A page of a table view: what `TABLE.json` returns and `TABLE.sse` streams.
    struct TablePage: Hashable, Sendable, Encodable {
        var table: String
        var columns: [String]
        var rows: [[DatabaseValue]]
        /// How many rows match the filter and the search, on every page; nil with `count=false`.
        var count: Int?
        var facets: [Facet.Counts]
        /// The `after=` token of the next page; nil on the last.
        var next: String?
        /// For each foreign-key column shown or faceted, the parent rows' labels by key (the value
        /// as text), for the values of the rows and of the facets.
        var labels: [String: [String: String]]
        /// The rows' text that is not UTF-8, as stored, by row and column (see
        /// ``ResultSet/invalidText``): CSV and HTML show it, the JSON formats refuse it.
        var invalidText: [Int: [Int: [UInt8]]] = [:]

        private enum CodingKeys: String, CodingKey {
            case table, columns, rows, count, facets, next, labels
        }

        func encode(to encoder: any Encoder) throws {
            try InvalidTextRefusal.check(invalidText, columns: columns)
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
