import SQLite

/// Turns a parsed filter into a query-builder expression for one table.
///
/// Every column is checked against the table's schema (an unknown one is a ``FilterError`` that
/// lists the columns and suggests the closest), values are checked against the columns' declared
/// types, and every value ends up bound: the builder renders each literal as `?`.
struct FilterCompiler {
    /// The most values one statement binds in a default SQLite build (SQLITE_MAX_VARIABLE_NUMBER).
    static let maximumValues = 32_766
    /// The longest LIKE or GLOB pattern SQLite matches, in bytes (SQLITE_MAX_LIKE_PATTERN_LENGTH).
    static let maximumPatternLength = 50_000

    let schema: TableSchema
    let db: Database
    /// The expression's text, for errors.
    let expression: String
    /// How many values the expression may still bind.
    private(set) var remainingValues: Int
    /// What else takes some of the values one statement binds, for the error.
    private var reservation: String?
    /// Whether an odd number of NOTs encloses the node being compiled: there a test across a
    /// foreign key stays a lookup, since a membership would not keep its nulls unknown.
    private var negated = false

    init(schema: TableSchema, db: Database, expression: String, maximumValues: Int = Self.maximumValues) {
        self.schema = schema
        self.db = db
        self.expression = expression
        remainingValues = maximumValues
    }

    /// Parses and compiles one `--where` expression.
    static func compile(_ expression: String, schema: TableSchema, db: Database) throws -> SQLExpression {
        var compiler = FilterCompiler(schema: schema, db: db, expression: expression)
        return try compiler.compile(try FilterParser.parse(expression))
    }

    /// Parses and compiles the `--where` expressions of one query, ANDed, within the values
    /// one statement can bind, less the `reserved` ones (a limit and an offset), whose
    /// `reason` the error names: "--limit takes 1 of them".
    static func compile(
        _ expressions: [String], schema: TableSchema, db: Database, reserved: (count: Int, reason: String)? = nil
    ) throws -> SQLExpression {
        var remaining = maximumValues - (reserved?.count ?? 0)
        var compiled: [SQLExpression] = []
        for expression in expressions {
            var compiler = FilterCompiler(schema: schema, db: db, expression: expression, maximumValues: remaining)
            compiler.reservation = reserved?.reason
            compiled.append(try compiler.compile(try FilterParser.parse(expression)))
            remaining = compiler.remainingValues
        }
        return .all(compiled)
    }

    /// The expression's SQL. The recursion is as deep as the filter's groups nest, which the
    /// parser keeps within ``FilterParser/maximumNesting``.
    mutating func compile(_ filter: FilterExpression) throws -> SQLExpression {
        switch filter {
        case .all(let operands):
            var compiled: [SQLExpression] = []
            compiled.reserveCapacity(operands.count)
            for operand in operands { compiled.append(try compile(operand)) }
            return .all(compiled)
        case .any(let operands):
            var compiled: [SQLExpression] = []
            compiled.reserveCapacity(operands.count)
            for operand in operands { compiled.append(try compile(operand)) }
            return .any(compiled)
        case .not(let inner):
            negated.toggle()
            defer { negated.toggle() }
            return !(try compile(inner))
        case .predicate(let predicate):
            return try compile(predicate)
        }
    }

    private mutating func compile(_ predicate: FilterPredicate) throws -> SQLExpression {
        switch predicate {
        case .truth(let name):
            let path = try resolve(name)
            let column = path.column
            if column.affinity == .text {
                throw mismatch(
                    "column \"\(column.name)\" holds text, so on its own it is not a true/false test; "
                        + "compare it instead, as in \(column.name) != ''",
                    position: name.position, length: name.length)
            }
            return path.expression
        case .comparison(let name, let comparison, .column(let otherName)):
            let left = try resolve(name).expression
            let right = try resolve(otherName).expression
            return switch comparison {
            case .equal: left == right
            case .notEqual: left != right
            case .less: left < right
            case .lessOrEqual: left <= right
            case .greater: left > right
            case .greaterOrEqual: left >= right
            }
        case .comparison(let name, let comparison, .value(let value)):
            let path = try resolve(name)
            let column = path.column
            let bound = try self.value(value, for: column)
            if !bound.isNull { try take(1, at: value.position, length: value.length) }
            if bound.isNull, comparison != .equal, comparison != .notEqual {
                throw mismatch(
                    "null has no order; test it with \"is null\" or \"is not null\"", position: value.position,
                    length: value.length)
            }
            // `= null` and `!= null` render IS NULL and IS NOT NULL, which is what they mean here.
            func test(_ left: SQLExpression) -> SQLExpression {
                switch comparison {
                case .equal: left == bound
                case .notEqual: left != bound
                case .less: left < bound
                case .lessOrEqual: left <= bound
                case .greater: left > bound
                case .greaterOrEqual: left >= bound
                }
            }
            return across(path, failsOnNull: !(bound.isNull && comparison == .equal), test)
        case .pattern(let name, let pattern, let text, let negated):
            let path = try resolve(name)
            try checkPattern(text, escaped: pattern == .contains)
            try take(1, at: text.position, length: text.length)
            return across(path, failsOnNull: true) { column in
                let expression =
                    switch pattern {
                    case .like: column.like(text.text)
                    case .glob: column.glob(text.text)
                    case .contains: column.contains(text.text)
                    }
                return negated ? !expression : expression
            }
        case .membership(let name, let list, let negated):
            let path = try resolve(name)
            let column = path.column
            var values: [DatabaseValue] = []
            values.reserveCapacity(list.count)
            for value in list {
                values.append(try self.value(value, for: column))
                try take(1, at: value.position, length: value.length)
            }
            return across(path, failsOnNull: true) { column in
                negated ? !column.in(values) : column.in(values)
            }
        case .range(let name, let low, let high, let negated):
            let path = try resolve(name)
            let (lower, upper) = (try value(low, for: path.column), try value(high, for: path.column))
            try take(2, at: low.position, length: high.position + high.length - low.position)
            return across(path, failsOnNull: true) { column in
                negated ? !column.between(lower, upper) : column.between(lower, upper)
            }
        case .nullTest(let name, let negated):
            return across(try resolve(name), failsOnNull: negated) { column in
                negated ? column != nil : column == nil
            }
        }
    }

    /// `test` on a column reached across foreign keys: as a membership in the keys of the rows
    /// that pass (which SQLite can run from the foreign key's index) where that selects the same
    /// rows, that is where `test` fails on null and no NOT encloses it; as a lookup elsewhere.
    private func across(
        _ path: ForeignKeyPath, failsOnNull: Bool, _ test: (SQLExpression) -> SQLExpression
    ) -> SQLExpression {
        failsOnNull && !negated ? path.rows(where: test) : test(path.expression)
    }

    /// The column a name stands for, following foreign keys for a dotted name.
    private func resolve(_ name: FilterExpression.ColumnName) throws -> ForeignKeyPath {
        try ForeignKeyPath(name.steps, from: schema, in: db, text: expression, option: "--where")
    }

    /// The value to bind for a literal, after checking that it fits the column's declared type.
    /// Text for a number column must be text SQLite reads as a number, and binds as that number.
    private mutating func value(
        _ value: FilterExpression.Value, for column: TableSchema.ColumnInfo
    ) throws -> DatabaseValue {
        let literal = value.literal
        let type = column.declaredType.isEmpty ? "" : " (\(column.declaredType))"
        var bound = literal.value
        switch literal.kind {
        case .text where column.affinity.holdsNumbers:
            guard case .text(let text) = literal.value, let number = DatabaseValue.numericAffinity(of: text) else {
                throw mismatch(
                    "column \"\(column.name)\"\(type) holds numbers, but \(literal.description) is text",
                    position: value.position, length: value.length)
            }
            bound = number
        case .date where column.affinity.holdsNumbers:
            throw mismatch(
                "column \"\(column.name)\"\(type) holds numbers, but \(literal.description) is a date",
                position: value.position, length: value.length)
        case .boolean where column.affinity == .text:
            throw mismatch(
                "column \"\(column.name)\"\(type) holds text, but \(literal.description) is a boolean",
                position: value.position, length: value.length)
        default:
            break
        }
        return bound
    }

    /// Counts values against what one statement can bind.
    private mutating func take(_ count: Int, at position: Int, length: Int) throws {
        remainingValues -= count
        guard remainingValues < 0 else { return }
        throw FilterError(
            reason: .limit(
                "too many values: SQLite binds at most \(Self.maximumValues) values in one query"
                    + (reservation.map { ", and " + $0 } ?? "")
                    + "; split the query, or use a range (between) instead of long lists"),
            expression: expression, position: position, length: length)
    }

    private func checkPattern(_ text: FilterExpression.Text, escaped: Bool) throws {
        var length = text.text.utf8.count
        if escaped {
            // contains() escapes %, _ and \ with a \, and adds a % at each end.
            length +=
                2
                + text.text.utf8.count {
                    $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "\\")
                }
        }
        guard length > Self.maximumPatternLength else { return }
        throw FilterError(
            reason: .limit(
                "this pattern is too long: SQLite matches patterns of at most \(Self.maximumPatternLength) bytes, "
                    + "and this one has \(length)"),
            expression: expression, position: text.position, length: text.length)
    }

    private func mismatch(_ message: String, position: Int, length: Int) -> FilterError {
        FilterError(
            reason: .typeMismatch("type mismatch: " + message), expression: expression, position: position,
            length: length)
    }
}
