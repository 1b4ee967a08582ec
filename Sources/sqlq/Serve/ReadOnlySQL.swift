#if HTTP
    import CSQLite
    import SQLite

    /// `--allow-sql`'s one statement: a SELECT (or `WITH … SELECT`, or VALUES) that SQLite
    /// itself says cannot write (`sqlite3_stmt_readonly`), one statement only, under the time
    /// limit and with at most ``maximumRows`` rows. The connection refuses writes anyway (the
    /// file is opened read-only, `PRAGMA query_only` is on, and a read refuses any statement
    /// that writes); this check also refuses what none of those do: ATTACH, DETACH, pragmas and
    /// transaction control.
    enum ReadOnlySQL {
        static let maximumRows = ViewParameters.maximumSize

        /// The statements it runs, by their first word.
        private static let keywords: Set<String> = ["SELECT", "WITH", "VALUES"]
        private static let refusal = "/-/sql runs one read-only statement, a SELECT (or WITH … SELECT, or VALUES)"

        static func run(_ sql: String, db: Database, timeLimit: Duration) throws -> SQLResult {
            let keyword = firstWord(sql)
            guard keywords.contains(keyword.uppercased()) else {
                throw ServeError(
                    .badRequest,
                    refusal + (keyword.isEmpty ? "; this SQL holds none" : "; this statement starts with \(keyword)"))
            }
            let statement: Statement
            do {
                statement = try db.makeStatement(sql)
            } catch let error as SQLiteError where error.code == SQLITE_MISUSE {
                throw ServeError(.badRequest, refusal + ", at a time; this SQL holds more than one statement")
            }
            guard sqlite3_stmt_readonly(statement.sqliteHandle) != 0 else {
                throw ServeError(.badRequest, refusal + "; this statement would write to the database")
            }
            var seen: Set<String> = []
            for column in statement.columnNames where !seen.insert(column).inserted {
                throw ServeError(
                    .badRequest, "the column \"\(column)\" is named twice; give each column its own name with AS")
            }
            return try QueryTimeLimit.run(db, limit: timeLimit) {
                defer { statement.reset() }
                var result = SQLResult(sql: sql, columns: statement.columnNames, rows: [], more: false)
                var budget = ByteBudget.serve
                while try statement.step() {
                    guard result.rows.count < maximumRows else {
                        result.more = true
                        break
                    }
                    try budget.charge(row: statement)
                    result.rows.append((0..<statement.columnCount).map { statement.value(at: $0) })
                }
                return result
            }
        }

        /// The first word of `sql`, after spaces and comments.
        private static func firstWord(_ sql: String) -> String {
            var rest = Substring(sql)
            while true {
                rest = rest.drop { $0.isWhitespace }
                if rest.hasPrefix("--") {
                    rest = rest.drop { $0 != "\n" }
                } else if rest.hasPrefix("/*") {
                    guard let close = rest.firstRange(of: "*/") else { return "" }
                    rest = rest[close.upperBound...]
                } else {
                    return String(rest.prefix { $0.isLetter || $0 == "_" })
                }
            }
        }
    }

    /// What `/-/sql.json` returns: the SQL, its columns, its rows as `sqlq query --format json`
    /// writes them, and whether it had more rows than ``ReadOnlySQL/maximumRows``.
    struct SQLResult: Hashable, Sendable, Encodable {
        var sql: String
        var columns: [String]
        var rows: [[DatabaseValue]]
        var more: Bool

        private enum CodingKeys: String, CodingKey { case sql, columns, rows, more }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(sql, forKey: .sql)
            try container.encode(columns, forKey: .columns)
            try container.encode(rows.map { JSONRow(columns: columns, values: $0) }, forKey: .rows)
            try container.encode(more, forKey: .more)
        }
    }
#endif
