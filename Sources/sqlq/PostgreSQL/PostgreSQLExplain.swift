#if PostgreSQL
    import SQLite

    /// `--explain` on PostgreSQL: each statement, its arguments and PostgreSQL's plan for it, as
    /// SQL comments below it, in the shape of SQLite's (``TableQuery/explanation(_:)``):
    ///
    ///     SELECT * FROM "items" WHERE "priority" >= $1 ORDER BY "due" DESC NULLS LAST LIMIT $2
    ///     -- arguments: 3, 10
    ///     -- plan:
    ///     --   Limit  (cost=…)
    ///     --     ->  Sort  (cost=…)
    ///
    /// The plan is `EXPLAIN`'s, never `EXPLAIN ANALYZE`'s: nothing runs.
    enum PostgreSQLExplain {
        /// The explanation of the statements, one after the other.
        static func explanation(
            _ connection: PostgreSQLConnection, _ statements: [(sql: String, arguments: [DatabaseValue])]
        ) throws -> String {
            var texts: [String] = []
            for (sql, arguments) in statements {
                var text = sql + "\n"
                text +=
                    "-- arguments: "
                    + (arguments.isEmpty ? "none" : arguments.map(literal).joined(separator: ", ")) + "\n"
                text += "-- plan:\n"
                for row in try connection.fetchAll("EXPLAIN " + sql, arguments) {
                    text += "--   " + row.value(at: 0).cellText + "\n"
                }
                texts.append(text)
            }
            return texts.joined(separator: "\n")
        }

        /// `value` as a PostgreSQL literal that reads back as the same value, on one line: text
        /// with line breaks or other control characters is a concatenation
        /// (`'a' || chr(10) || 'b'`), so that nothing in a value can end the `--` comment.
        static func literal(_ value: DatabaseValue) -> String {
            switch value {
            case .null, .integer:
                return value.description
            case .real(let number):
                if number.isNaN { return "'NaN'" }
                if number.isInfinite { return number < 0 ? "'-Infinity'" : "'Infinity'" }
                return String(number)
            case .blob(let bytes):
                let digits = Array("0123456789abcdef")
                return "'\\x" + String(bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0xF)]] }) + "'::bytea"
            case .text(let text):
                var parts: [String] = []
                var run = ""
                for scalar in text.unicodeScalars {
                    if TableQuery.isLineBreaking(scalar) {
                        if !run.isEmpty { parts.append("'" + run + "'") }
                        run = ""
                        parts.append("chr(\(scalar.value))")
                    } else {
                        run.unicodeScalars.append(scalar)
                        if scalar == "'" { run.unicodeScalars.append("'") }
                    }
                }
                if !run.isEmpty || parts.isEmpty { parts.append("'" + run + "'") }
                return parts.joined(separator: " || ")
            }
        }
    }
#endif
