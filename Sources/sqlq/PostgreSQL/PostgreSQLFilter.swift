#if PostgreSQL
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
    /// - `like` and `contains` work on text and integer columns, whose text forms the two share.
    /// - `glob` has no PostgreSQL twin, and dotted foreign-key paths are not followed yet.
    struct PostgreSQLFilter {
        let table: PostgreSQLTable
        /// The expression's text, for errors.
        let expression: String

        /// Parses and compiles the `--where` expressions of one query, ANDed.
        static func compile(_ expressions: [String], table: PostgreSQLTable) throws -> SQLExpression {
            var compiled: [SQLExpression] = []
            for expression in expressions {
                let compiler = PostgreSQLFilter(table: table, expression: expression)
                compiled.append(try compiler.compile(try FilterParser.parse(expression)))
            }
            return .all(compiled)
        }

        func compile(_ filter: FilterExpression) throws -> SQLExpression {
            switch filter {
            case .all(let operands): .all(try operands.map { try compile($0) })
            case .any(let operands): .any(try operands.map { try compile($0) })
            case .not(let inner): !(try compile(inner))
            case .predicate(let predicate): try compile(predicate)
            }
        }

        private func compile(_ predicate: FilterPredicate) throws -> SQLExpression {
            switch predicate {
            case .truth(let name):
                let column = try resolve(name)
                switch column.kind {
                case .boolean: return Column(column.name).sqlExpression
                case .integer, .float, .numeric: return Column(column.name).sqlExpression != DatabaseValue.integer(0)
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
                let (left, right) = (try resolve(name), try resolve(otherName))
                guard left.kind == right.kind || (left.kind.isNumber && right.kind.isNumber) else {
                    throw mismatch(
                        "on PostgreSQL, column \"\(left.name)\" (\(left.type)) and column \"\(right.name)\" "
                            + "(\(right.type)) cannot be compared: their types differ",
                        name.position, otherName.position + otherName.length - name.position)
                }
                let (lhs, rhs) = (Self.compared(left, of: table), Self.compared(right, of: table))
                return switch comparison {
                case .equal: lhs == rhs
                case .notEqual: lhs != rhs
                case .less: lhs < rhs
                case .lessOrEqual: lhs <= rhs
                case .greater: lhs > rhs
                case .greaterOrEqual: lhs >= rhs
                }
            case .comparison(let name, let comparison, .value(let value)):
                let column = try resolve(name)
                let bound = try self.value(value, for: column)
                if bound.isNull, comparison != .equal, comparison != .notEqual {
                    throw mismatch(
                        "null has no order; test it with \"is null\" or \"is not null\"", value.position, value.length)
                }
                // `= null` and `!= null` render IS NULL and IS NOT NULL.
                let left = bound.isNull ? Column(column.name).sqlExpression : Self.compared(column, of: table)
                return switch comparison {
                case .equal: left == bound
                case .notEqual: left != bound
                case .less: left < bound
                case .lessOrEqual: left <= bound
                case .greater: left > bound
                case .greaterOrEqual: left >= bound
                }
            case .pattern(let name, let pattern, let text, let negated):
                let column = try resolve(name)
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
                let expression =
                    pattern == .like
                    ? Column(column.name).sqlExpression.like(text.text)
                    : Column(column.name).sqlExpression.contains(text.text)
                return negated ? !expression : expression
            case .membership(let name, let list, let negated):
                let column = try resolve(name)
                let values = try list.map { try self.value($0, for: column) }
                let expression = Column(column.name).sqlExpression.in(values)
                return negated ? !expression : expression
            case .range(let name, let low, let high, let negated):
                let column = try resolve(name)
                let (lower, upper) = (try value(low, for: column), try value(high, for: column))
                let expression = Self.compared(column, of: table).between(lower, upper)
                return negated ? !expression : expression
            case .nullTest(let name, let negated):
                let column = Column(try resolve(name).name).sqlExpression
                return negated ? column != nil : column == nil
            }
        }

        /// A column as comparisons see it: text byte by byte, as SQLite's BINARY collation
        /// compares it, rather than by the database's locale.
        ///
        /// The name is qualified by the table's: in ORDER BY, a bare name would be the selected
        /// column of that name, which is the value's text form.
        static func compared(_ column: PostgreSQLTable.Column, of table: PostgreSQLTable) -> SQLExpression {
            let name: [SQLFragment.Segment] = [.identifier(table.name), .sql("."), .identifier(column.name)]
            guard column.kind == .string else { return SQLExpression(SQLFragment(name), precedence: .atom) }
            return SQLExpression(SQLFragment([.sql("(")] + name + [.sql(" COLLATE \"C\")")]), precedence: .atom)
        }

        /// The table's column for a name; dotted names are refused.
        private func resolve(_ name: FilterExpression.ColumnName) throws -> PostgreSQLTable.Column {
            guard name.steps.count == 1 else {
                throw FilterError(
                    reason: .limit("dotted foreign-key paths are not available on PostgreSQL yet"),
                    expression: expression, position: name.position, length: name.length)
            }
            do {
                return try table.column(name.name)
            } catch let error as SchemaError {
                throw FilterError(
                    reason: .unknownColumn(error), expression: expression, position: name.position,
                    length: name.length)
            }
        }

        /// The value to bind for a literal, once it is known to mean on PostgreSQL what it means
        /// on SQLite for this column.
        private func value(_ value: FilterExpression.Value, for column: PostgreSQLTable.Column) throws -> DatabaseValue
        {
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
                    throw refuse("values written as text, such as '…',")
                }
                return literal.value
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
