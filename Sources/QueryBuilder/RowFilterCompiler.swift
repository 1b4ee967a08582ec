import SQLCore

/// Turns a builder filter back into a tree that ``RowFilter`` evaluates. The builder writes a
/// known set of operators and connectives, so reading its segments is enough; any other text
/// makes the filter unknown, and the query reads every row. The segments are the same whichever
/// dialect renders them, so SQLite's and PostgreSQL's live values share it.
package struct RowFilterCompiler {
    private struct Failure: Error {}

    private enum Operand {
        case column(Int)
        case value(DatabaseValue)
        case node(RowFilter.Node)
    }

    /// Deeper nesting than this is not tested (the filter counts as matching every row).
    private static let maxDepth = 100

    private let segments: [SQLFragment.Segment]
    private let columnIndex: (String) -> Int?
    private var position = 0
    private var depth = 0

    /// The filter as a tree, or nil when it holds SQL that is not the builder's or names an
    /// unknown column.
    package static func compile(_ expression: SQLExpression, columnIndex: @escaping (String) -> Int?) -> RowFilter.Node?
    {
        var compiler = RowFilterCompiler(segments: expression.fragment.segments, columnIndex: columnIndex)
        guard let node = try? compiler.parseOr(), compiler.position == compiler.segments.count else { return nil }
        return node
    }

    private init(segments: [SQLFragment.Segment], columnIndex: @escaping (String) -> Int?) {
        self.segments = segments
        self.columnIndex = columnIndex
    }

    private func peek() -> String? {
        guard position < segments.count, case .sql(let text) = segments[position] else { return nil }
        return text
    }

    private mutating func expect(_ text: String) throws {
        guard peek() == text else { throw Failure() }
        position += 1
    }

    private mutating func parseOr() throws -> RowFilter.Node {
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maxDepth else { throw Failure() }
        var nodes = [try parseAnd()]
        while peek() == " OR " {
            position += 1
            nodes.append(try parseAnd())
        }
        return nodes.count == 1 ? nodes[0] : .or(nodes)
    }

    private mutating func parseAnd() throws -> RowFilter.Node {
        var nodes = [try parseNot()]
        while peek() == " AND " {
            position += 1
            nodes.append(try parseNot())
        }
        return nodes.count == 1 ? nodes[0] : .and(nodes)
    }

    private mutating func parseNot() throws -> RowFilter.Node {
        if peek() == "NOT " {
            position += 1
            depth += 1
            defer { depth -= 1 }
            guard depth <= Self.maxDepth else { throw Failure() }
            return .not(try parseNot())
        }
        return try parsePredicate()
    }

    private mutating func parsePredicate() throws -> RowFilter.Node {
        let lhs = try parsePrimary()
        if position < segments.count, case .emptyList = segments[position] {
            position += 1
            guard case .column(let column) = lhs else { return .unknown }
            return .inList(column: column, [])
        }
        guard let text = peek() else {
            if case .node(let node) = lhs { return node }
            // A bare column or value, true by its numeric value: not evaluated.
            return .unknown
        }
        switch text {
        case " IS NULL", " IS NOT NULL":
            position += 1
            guard case .column(let column) = lhs else { return .unknown }
            return .isNull(column: column, negated: text == " IS NOT NULL")
        case " = ", " <> ", " < ", " <= ", " > ", " >= ":
            position += 1
            let rhs = try parsePrimary()
            let op = Self.comparison(text)
            switch (lhs, rhs) {
            case (.column(let column), .value(let value)): return .comparison(column: column, op, value)
            case (.value(let value), .column(let column)): return .comparison(column: column, Self.flipped(op), value)
            default: return .unknown
            }
        case " IN (":
            position += 1
            var values: [DatabaseValue] = []
            var isExact = true
            while true {
                if case .value(let value) = try parsePrimary() { values.append(value) } else { isExact = false }
                guard peek() == ", " else { break }
                position += 1
            }
            try expect(")")
            guard isExact, case .column(let column) = lhs else { return .unknown }
            return .inList(column: column, values)
        case " BETWEEN ":
            position += 1
            let lower = try parsePrimary()
            try expect(" AND ")
            let upper = try parsePrimary()
            guard case .column(let column) = lhs, case .value(let low) = lower, case .value(let high) = upper else {
                return .unknown
            }
            return .and([
                .comparison(column: column, .greaterOrEqual, low), .comparison(column: column, .lessOrEqual, high),
            ])
        default:
            if case .node(let node) = lhs { return node }
            return .unknown
        }
    }

    private mutating func parsePrimary() throws -> Operand {
        guard position < segments.count else { throw Failure() }
        let segment = segments[position]
        position += 1
        switch segment {
        case .identifier(let name):
            guard let index = columnIndex(name) else { throw Failure() }
            return .column(index)
        case .binding(let value):
            return .value(value)
        case .sql("("):
            let node = try parseOr()
            try expect(")")
            return .node(node)
        case .boolean(let value):
            return .node(.truth(value))
        case .patternMatch(let match):
            // Not evaluated, but its operands must be this row's, as any other predicate's.
            try checkOperand(match.operand)
            try checkOperand(match.pattern)
            return .node(.unknown)
        case .sql, .foreignIdentifier, .invalidValue, .emptyList, .fullTextSearch:
            // A lookup in another table is not this row's to decide (nor is a value that never runs).
            throw Failure()
        }
    }

    /// Throws unless `segments` are one operand this compiler reads: a column of the row, a
    /// value, or a parenthesized filter of them.
    private func checkOperand(_ segments: [SQLFragment.Segment]) throws {
        var operand = RowFilterCompiler(segments: segments, columnIndex: columnIndex)
        operand.depth = depth + 1
        guard operand.depth <= Self.maxDepth else { throw Failure() }
        _ = try operand.parsePrimary()
        guard operand.position == segments.count else { throw Failure() }
    }

    private static func comparison(_ text: String) -> RowFilter.Operator {
        switch text {
        case " = ": .equal
        case " <> ": .notEqual
        case " < ": .less
        case " <= ": .lessOrEqual
        case " > ": .greater
        default: .greaterOrEqual
        }
    }

    private static func flipped(_ op: RowFilter.Operator) -> RowFilter.Operator {
        switch op {
        case .less: .greater
        case .lessOrEqual: .greaterOrEqual
        case .greater: .less
        case .greaterOrEqual: .lessOrEqual
        case .equal, .notEqual: op
        }
    }
}
