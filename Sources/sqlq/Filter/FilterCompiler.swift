import SQLite

/// Turns a parsed filter into a query-builder expression for one table.
///
/// Every column is checked against the table's schema (an unknown one is a ``FilterError`` that
/// lists the columns and suggests the closest), values are checked against the columns' declared
/// types, and every value ends up bound: the builder renders each literal as `?`.
struct FilterCompiler {
    let schema: TableSchema
    let db: Database
    /// The expression's text, for errors.
    let expression: String

    /// Parses and compiles one `--where` expression.
    static func compile(_ expression: String, schema: TableSchema, db: Database) throws -> SQLExpression {
        let parsed = try FilterParser.parse(expression)
        return try FilterCompiler(schema: schema, db: db, expression: expression).compile(parsed)
    }

    func compile(_ filter: FilterExpression) throws -> SQLExpression {
        switch filter {
        case .column(let name, let position, let length):
            let column = try resolve(name, position: position, length: length)
            if column.affinity == .text {
                throw mismatch(
                    "column \"\(column.name)\" holds text, so on its own it is not a true/false test; "
                        + "compare it instead, as in \(column.name) != ''",
                    position: position, length: length)
            }
            return Column(column.name).sqlExpression
        case .not(let inner):
            return !(try compile(inner))
        case .and(let lhs, let rhs):
            return try compile(lhs) && compile(rhs)
        case .or(let lhs, let rhs):
            return try compile(lhs) || compile(rhs)
        case .comparison(let lhs, let comparison, let rhs):
            return try compare(lhs, comparison, rhs)
        case .pattern(let operand, let pattern, let patternOperand, let negated):
            let column = try self.column(operand)
            guard case .literal(let literal, _, _) = patternOperand, case .text(let text) = literal.value else {
                preconditionFailure("the parser only accepts a string after a pattern operator")
            }
            let expression =
                switch pattern {
                case .like: Column(column.name).like(text)
                case .glob: Column(column.name).glob(text)
                case .contains: Column(column.name).contains(text)
                }
            return negated ? !expression : expression
        case .membership(let operand, let list, let negated):
            let column = try self.column(operand)
            let values = try list.map { try value($0, for: column) }
            let expression = Column(column.name).in(values)
            return negated ? !expression : expression
        case .range(let operand, let low, let high, let negated):
            let column = try self.column(operand)
            let expression = Column(column.name).between(try value(low, for: column), try value(high, for: column))
            return negated ? !expression : expression
        case .nullTest(let operand, let negated):
            let column = try self.column(operand)
            return negated ? Column(column.name) != nil : Column(column.name) == nil
        }
    }

    private func compare(
        _ lhs: FilterExpression.Operand, _ comparison: FilterExpression.Comparison, _ rhs: FilterExpression.Operand
    ) throws -> SQLExpression {
        switch (lhs, rhs) {
        case (.column, .column):
            let left = Column(try column(lhs).name)
            let right = Column(try column(rhs).name)
            return switch comparison {
            case .equal: left == right
            case .notEqual: left != right
            case .less: left < right
            case .lessOrEqual: left <= right
            case .greater: left > right
            case .greaterOrEqual: left >= right
            }
        case (.column, .literal):
            return try compare(lhs, comparison, literal: rhs)
        case (.literal, .column):
            return try compare(rhs, comparison.mirrored, literal: lhs)
        case (.literal(_, let position, _), .literal(_, let end, let length)):
            throw FilterError(
                reason: .syntax("a comparison needs a column on at least one side"),
                expression: expression, position: position, length: end + length - position)
        }
    }

    private func compare(
        _ columnOperand: FilterExpression.Operand, _ comparison: FilterExpression.Comparison,
        literal literalOperand: FilterExpression.Operand
    ) throws -> SQLExpression {
        let column = try self.column(columnOperand)
        let bound = try value(literalOperand, for: column)
        if bound.isNull, comparison != .equal, comparison != .notEqual,
            case .literal(_, let position, let length) = literalOperand
        {
            throw mismatch(
                "null has no order; test it with \"is null\" or \"is not null\"", position: position, length: length)
        }
        let left = Column(column.name)
        // `= null` and `!= null` render IS NULL and IS NOT NULL, which is what they mean here.
        return switch comparison {
        case .equal: left == bound
        case .notEqual: left != bound
        case .less: left < bound
        case .lessOrEqual: left <= bound
        case .greater: left > bound
        case .greaterOrEqual: left >= bound
        }
    }

    private func column(_ operand: FilterExpression.Operand) throws -> TableSchema.ColumnInfo {
        guard case .column(let name, let position, let length) = operand else {
            preconditionFailure("the parser only accepts a column here")
        }
        return try resolve(name, position: position, length: length)
    }

    private func resolve(_ name: String, position: Int, length: Int) throws -> TableSchema.ColumnInfo {
        do {
            return try schema.column(name, in: db)
        } catch let error as SchemaError {
            throw FilterError(reason: .unknownColumn(error), expression: expression, position: position, length: length)
        }
    }

    /// The literal's value, after checking that it fits the column's declared type.
    private func value(_ operand: FilterExpression.Operand, for column: TableSchema.ColumnInfo) throws -> SQLiteValue {
        guard case .literal(let literal, let position, let length) = operand else {
            preconditionFailure("the parser only accepts a literal here")
        }
        let type = column.declaredType.isEmpty ? "" : " (\(column.declaredType))"
        switch literal.kind {
        case .text where column.affinity.holdsNumbers:
            if case .text(let text) = literal.value, Double(text) != nil { break }
            throw mismatch(
                "column \"\(column.name)\"\(type) holds numbers, but \(literal.description) is text",
                position: position, length: length)
        case .date where column.affinity.holdsNumbers:
            throw mismatch(
                "column \"\(column.name)\"\(type) holds numbers, but \(literal.description) is a date",
                position: position, length: length)
        case .boolean where column.affinity == .text:
            throw mismatch(
                "column \"\(column.name)\"\(type) holds text, but \(literal.description) is a boolean",
                position: position, length: length)
        default:
            break
        }
        return literal.value
    }

    private func mismatch(_ message: String, position: Int, length: Int) -> FilterError {
        FilterError(
            reason: .typeMismatch("type mismatch: " + message), expression: expression, position: position,
            length: length)
    }
}
