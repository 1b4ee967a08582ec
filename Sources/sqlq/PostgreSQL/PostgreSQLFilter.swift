#if PostgreSQL
    import PostgreSQL
    import QueryBuilder
    import SQLite

    /// Turns a parsed `--where` filter into a query-builder expression for a PostgreSQL table,
    /// which the builder renders in its PostgreSQL dialect (LIKE folding only ASCII letters, with
    /// no escape character; reals bound as `numeric`; NULLs sorted where SQLite sorts them).
    ///
    /// Each operator means what it means on SQLite, or the filter is refused (exit status 2):
    /// - A literal is bound untyped, so that PostgreSQL reads it as the column's type (`'2026-03-01'`
    ///   as a `date`, `1` as a `boolean`), except reals and large integers, which the builder binds
    ///   as `numeric` and `int8` so that they compare exactly with any number column.
    /// - Text is compared byte by byte, as SQLite's BINARY collation does: `COLLATE "C"`,
    ///   whatever the database's locale.
    /// - Numbers compare with number columns only, text and dates with text and other columns;
    ///   booleans with boolean and number columns (as 1 and 0). SQLite would convert a number
    ///   for a text column to its text, whose form PostgreSQL does not share for reals.
    /// - Each column compares in its ``PostgreSQLTable/Form``: dates, times, intervals, enums and `char(n)`
    ///   as their printed text, a `real` as the double it prints, a `double precision` with an
    ///   integer exactly; a literal for another type is checked against it on the server first.
    /// - `like` and `contains` work on text and integer columns, whose text forms the two share.
    /// - `glob` has no PostgreSQL twin.
    /// - A dotted name follows the table's foreign keys (``PostgreSQLColumnPath``), in the forms
    ///   SQLite's paths take in the same places: a membership in the parent's keys for a test
    ///   that fails on null outside any NOT, a lookup elsewhere.
    struct PostgreSQLFilter {
        let table: PostgreSQLTable
        /// The catalog's foreign keys, which dotted names follow.
        let foreignKeys: PostgreSQLForeignKeys
        /// The expression's text, for errors.
        let expression: String

        /// Parses and compiles the `--where` expressions of one query, ANDed.
        static func compile(
            _ expressions: [String], table: PostgreSQLTable, foreignKeys: PostgreSQLForeignKeys
        ) throws -> SQLExpression {
            var compiled: [SQLExpression] = []
            for expression in expressions {
                let compiler = PostgreSQLFilter(table: table, foreignKeys: foreignKeys, expression: expression)
                compiled.append(try compiler.compile(try FilterParser.parse(expression)))
            }
            return .all(compiled)
        }

        /// The expression's SQL; `negated` when an odd number of NOTs encloses it, where a test
        /// across a foreign key stays a lookup, since a membership would not keep its nulls unknown.
        func compile(_ filter: FilterExpression, negated: Bool = false) throws -> SQLExpression {
            switch filter {
            case .all(let operands): .all(try operands.map { try compile($0, negated: negated) })
            case .any(let operands): .any(try operands.map { try compile($0, negated: negated) })
            case .not(let inner): !(try compile(inner, negated: !negated))
            case .predicate(let predicate): try compile(predicate, negated: negated)
            }
        }

        private func compile(_ predicate: FilterPredicate, negated: Bool) throws -> SQLExpression {
            /// `test` on a column, across foreign keys as a membership where that selects the
            /// same rows as a lookup: where `test` fails on null and no NOT encloses it.
            func across(
                _ path: PostgreSQLColumnPath, failsOnNull: Bool,
                _ test: (_ value: SQLExpression, _ compared: SQLExpression) -> SQLExpression
            ) -> SQLExpression {
                failsOnNull && !negated ? path.rows(where: test) : test(path.expression, path.compared)
            }
            switch predicate {
            case .truth(let name):
                let path = try resolve(name)
                let column = path.column
                switch column.kind {
                case .boolean: return path.expression
                case .integer, .float, .numeric: return path.expression != DatabaseValue.integer(0)
                case .string:
                    throw mismatch(
                        "column \"\(column.name)\" holds text, so on its own it is not a true/false test; "
                            + "compare it instead, as in \(column.name) != ''", name.position, name.length)
                case .other:
                    throw mismatch(
                        "column \"\(column.name)\" (\(column.type)) is not a true/false test; compare it instead",
                        name.position, name.length)
                }
            case .comparison(let name, let comparison, .column(let otherName)):
                let (leftPath, rightPath) = (try resolve(name), try resolve(otherName))
                let (left, right) = (leftPath.column, rightPath.column)
                guard
                    (left.kind == right.kind && (left.kind != .other || left.baseType == right.baseType))
                        || (left.kind.isNumber && right.kind.isNumber)
                else {
                    throw mismatch(
                        "on PostgreSQL, column \"\(left.name)\" (\(left.type)) and column \"\(right.name)\" "
                            + "(\(right.type)) cannot be compared: their types differ",
                        name.position, otherName.position + otherName.length - name.position)
                }
                if left.form == .value, left.checksLiterals {
                    try check(nil, for: left, comparison.rawValue, name.position, name.length)
                }
                let (lhs, rhs) = (leftPath.compared, rightPath.compared)
                return switch comparison {
                case .equal: lhs == rhs
                case .notEqual: lhs != rhs
                case .less: lhs < rhs
                case .lessOrEqual: lhs <= rhs
                case .greater: lhs > rhs
                case .greaterOrEqual: lhs >= rhs
                }
            case .comparison(let name, let comparison, .value(let value)):
                let path = try resolve(name)
                let bound = try self.value(value, for: path.column, comparison.rawValue)
                if bound.isNull, comparison != .equal, comparison != .notEqual {
                    throw mismatch(
                        "null has no order; test it with \"is null\" or \"is not null\"", value.position, value.length)
                }
                if path.column.kind == .float, let (below, above) = Self.doubles(around: bound) {
                    return across(path, failsOnNull: true) { _, compared in
                        Self.compare(compared, comparison, between: below, and: above)
                    }
                }
                return across(path, failsOnNull: !(bound.isNull && comparison == .equal)) { column, compared in
                    // `= null` and `!= null` render IS NULL and IS NOT NULL.
                    let left = bound.isNull ? column : compared
                    return switch comparison {
                    case .equal: left == bound
                    case .notEqual: left != bound
                    case .less: left < bound
                    case .lessOrEqual: left <= bound
                    case .greater: left > bound
                    case .greaterOrEqual: left >= bound
                    }
                }
            case .pattern(let name, let pattern, let text, let negatedPattern):
                let path = try resolve(name)
                let column = path.column
                if pattern == .glob {
                    throw FilterError(
                        reason: .limit(
                            "glob is not available on PostgreSQL, which has no operator that matches as GLOB does; "
                                + "use like or contains"),
                        expression: expression, position: name.position,
                        length: text.position + text.length - name.position)
                }
                guard column.kind == .string || column.kind == .integer else {
                    throw mismatch(
                        "on PostgreSQL, \(pattern.rawValue) matches text and integer columns only; "
                            + "column \"\(column.name)\" is \(column.type)", name.position, name.length)
                }
                // Byte by byte: a nondeterministic collation has no LIKE, and SQLite's matches bytes.
                return across(path, failsOnNull: true) { _, compared in
                    let expression = pattern == .like ? compared.like(text.text) : compared.contains(text.text)
                    return negatedPattern ? !expression : expression
                }
            case .membership(let name, let list, let negatedList):
                let path = try resolve(name)
                var values = try list.map { try self.value($0, for: path.column, "=") }
                // No double equals an integer that has none of its own: it matches no row.
                if path.column.kind == .float { values.removeAll { Self.doubles(around: $0) != nil } }
                return across(path, failsOnNull: true) { _, compared in
                    negatedList ? !compared.in(values) : compared.in(values)
                }
            case .range(let name, let low, let high, let negatedRange):
                let path = try resolve(name)
                let (lower, upper) = (
                    try value(low, for: path.column, ">="), try value(high, for: path.column, "<=")
                )
                if path.column.kind == .float, Self.doubles(around: lower) != nil || Self.doubles(around: upper) != nil
                {
                    return across(path, failsOnNull: true) { _, compared in
                        let range =
                            Self.compare(compared, .greaterOrEqual, lower)
                            && Self.compare(compared, .lessOrEqual, upper)
                        return negatedRange ? !range : range
                    }
                }
                return across(path, failsOnNull: true) { _, compared in
                    negatedRange ? !compared.between(lower, upper) : compared.between(lower, upper)
                }
            case .nullTest(let name, let negatedTest):
                return across(try resolve(name), failsOnNull: negatedTest) { column, _ in
                    negatedTest ? column != nil : column == nil
                }
            }
        }

        /// A column as comparisons see it (``PostgreSQLTable/Form``): text byte by byte, as
        /// SQLite's BINARY collation compares it, rather than by the database's locale.
        ///
        /// The name is qualified by the table's: in ORDER BY, a bare name would be the selected
        /// column of that name, which is the value's text form.
        static func compared(_ column: PostgreSQLTable.Column, of table: PostgreSQLTable) -> SQLExpression {
            let name: [SQLFragment.Segment] = [.identifier(table.name), .sql("."), .identifier(column.name)]
            return PostgreSQLColumnPath.collated(SQLExpression(SQLFragment(name), precedence: .atom), column)
        }

        /// The column a name stands for, following foreign keys for a dotted name.
        private func resolve(_ name: FilterExpression.ColumnName) throws -> PostgreSQLColumnPath {
            try PostgreSQLColumnPath(
                name.steps, from: table, foreignKeys: foreignKeys, text: expression, option: "--where")
        }

        /// The value to bind for a literal, once it is known to mean on PostgreSQL what it means
        /// on SQLite for this column.
        private func value(
            _ value: FilterExpression.Value, for column: PostgreSQLTable.Column, _ operator: String
        ) throws -> DatabaseValue {
            let literal = value.literal
            if literal.kind == .null { return .null }
            func refuse(_ what: String) -> FilterError {
                mismatch(
                    "column \"\(column.name)\" (\(column.type)) holds \(what), but \(literal.description) is "
                        + Self.article(literal.kind), value.position, value.length)
            }
            switch column.kind {
            case .integer, .float, .numeric:
                switch literal.kind {
                case .integer, .real, .boolean: return literal.value
                case .text:
                    guard case .text(let text) = literal.value, let number = DatabaseValue.numericAffinity(of: text)
                    else { throw refuse("numbers") }
                    return number
                case .date, .null: throw refuse("numbers")
                }
            case .boolean:
                guard literal.kind == .boolean || literal.kind == .integer,
                    literal.value == .integer(0) || literal.value == .integer(1)
                else { throw refuse("booleans (true, false, 1 or 0)") }
                return literal.value
            case .string:
                guard literal.kind == .text || literal.kind == .date else {
                    throw refuse("text (on PostgreSQL, quote the value: '\(literal.value.cellText)')")
                }
                return literal.value
            case .other:
                guard literal.kind == .text || literal.kind == .date else {
                    throw mismatch(
                        "column \"\(column.name)\" (\(column.type)) takes values written as quoted text, such as "
                            + "'\(literal.value.cellText)', but \(literal.description) is "
                            + Self.article(literal.kind),
                        value.position, value.length)
                }
                if column.checksLiterals {
                    try check(
                        literal.value, for: column, column.form == .value ? `operator` : nil, value.position,
                        value.length)
                }
                return literal.value
            }
        }

        /// Asks the server whether the column's type takes `literal` (when given) and has
        /// `operator` (when given), so that what it refuses is a usage error that names the
        /// column, rather than the server's error once the query runs.
        private func check(
            _ literal: DatabaseValue?, for column: PostgreSQLTable.Column, _ operator: String?, _ position: Int,
            _ length: Int
        ) throws {
            let type = column.baseType
            var sql = "SELECT " + (literal == nil ? "NULL" : "CAST($1::text AS \(type)) IS NULL")
            // An operator's name cannot be bound; these are the filter language's own.
            if let `operator` { sql += ", CAST(NULL AS \(type)) \(`operator`) CAST(NULL AS \(type))" }
            do {
                _ = try foreignKeys.connection.fetchAll(sql, literal.map { [$0] } ?? [])
            } catch let error as PostgreSQLError {
                guard let state = error.sqlState, state.hasPrefix("22") || state.hasPrefix("42") else { throw error }
                let what =
                    state.hasPrefix("22") && literal != nil
                    ? "does not take " + (literal.map { "'\($0.cellText)'" } ?? "")
                    : "cannot be compared with \(`operator` ?? "=") on PostgreSQL"
                throw mismatch(
                    "column \"\(column.name)\" (\(column.type)) \(what): \(error.message)", position, length)
            }
        }

        /// The two doubles either side of an integer that no double equals, or nil for any
        /// other value: SQLite compares an integer with a real exactly, where PostgreSQL would
        /// round the integer to a double first.
        static func doubles(around value: DatabaseValue) -> (below: Double, above: Double)? {
            guard case .integer(let integer) = value, Double(exactly: integer) == nil else { return nil }
            let nearest = Double(integer)
            // 2⁶³, the nearest double to the largest integers, is above every Int64.
            if let rounded = Int64(exactly: nearest), rounded < integer { return (nearest, nearest.nextUp) }
            return (nearest.nextDown, nearest)
        }

        /// `value` compared with an integer exactly, by the doubles either side of it when no
        /// double equals it, in a form that stays null for a null value: no double lies strictly
        /// between the two, so `=` holds for none.
        static func compare(
            _ value: SQLExpression, _ comparison: FilterExpression.Comparison, between below: Double, and above: Double
        ) -> SQLExpression {
            let (below, above) = (DatabaseValue.real(below), DatabaseValue.real(above))
            return switch comparison {
            case .less, .lessOrEqual: value <= below
            case .greater, .greaterOrEqual: value >= above
            case .equal: value > below && value < above
            case .notEqual: !(value > below && value < above)
            }
        }

        /// `value` compared with a bound value, exactly as SQLite compares a real with it.
        static func compare(_ value: SQLExpression, _ comparison: FilterExpression.Comparison, _ bound: DatabaseValue)
            -> SQLExpression
        {
            if let (below, above) = doubles(around: bound) {
                return compare(value, comparison, between: below, and: above)
            }
            return switch comparison {
            case .equal: value == bound
            case .notEqual: value != bound
            case .less: value < bound
            case .lessOrEqual: value <= bound
            case .greater: value > bound
            case .greaterOrEqual: value >= bound
            }
        }

        private static func article(_ kind: FilterLiteral.Kind) -> String {
            switch kind {
            case .integer, .real: "a number"
            case .text: "text"
            case .boolean: "a boolean"
            case .null: "null"
            case .date: "a date"
            }
        }

        private func mismatch(_ message: String, _ position: Int, _ length: Int) -> FilterError {
            FilterError(
                reason: .typeMismatch("type mismatch: " + message), expression: expression, position: position,
                length: length)
        }
    }
#endif
