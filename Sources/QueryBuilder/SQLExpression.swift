import SQLCore

/// A type that can stand in a SQL expression: ``Column`` and ``SQLExpression`` itself.
///
/// Every expressible is also an ordering term, sorting ascending by default, so both
/// `sort(Column("title"))` and `sort(Column("title").desc)` read naturally.
public protocol SQLExpressible: SQLOrderingTerm {
    /// The expression this value stands for.
    var sqlExpression: SQLExpression { get }
}

extension SQLExpressible {
    /// Sorts by the expression in SQLite's default direction (ascending), without a keyword.
    public var sqlOrdering: SQLOrdering { SQLOrdering(sqlExpression, direction: nil) }
}

/// A SQL expression: a column, a bound value, or a combination built with operators.
///
/// ```swift
/// let open = Column("done") == false && Column("priority") >= 2
/// let named = Column("title").contains("50%_off")
/// let request = Item.all().filter(open || named)
/// ```
///
/// Expressions are values: `Hashable` and `Sendable`, so they can be members of a
/// ``FetchKeyRequest``. Text and names compare by their UTF-8 bytes, as SQLite compares them. They
/// never hold SQL text from users: values are always bound, and names are always quoted.
public struct SQLExpression: Hashable, Sendable, SQLExpressible {
    /// How tightly the expression binds, so that an operator parenthesizes exactly the operands
    /// that need it and rendering stays deterministic.
    @usableFromInline
    package enum Precedence: UInt8, Hashable, Sendable {
        case or = 1
        case and
        case not
        case comparison
        case atom
    }

    /// How an expression is stored. The two shapes nearly every filter and sort is made of, a
    /// column and a column compared with a value, are kept inline, so that building them
    /// allocates nothing; anything else is a list of segments.
    @usableFromInline
    package enum Node: Sendable {
        /// `"name"`
        case column(String)
        /// `"name" op ?`
        case comparison(column: String, SQLComparisonOperator, DatabaseValue)
        /// Any other expression.
        case fragment(SQLFragment, Precedence)
    }

    @usableFromInline package var node: Node

    @inlinable
    package init(_ node: Node) {
        self.node = node
    }

    @inlinable
    package init(_ fragment: SQLFragment, precedence: Precedence) {
        node = .fragment(fragment, precedence)
    }

    @usableFromInline
    package var precedence: Precedence {
        switch node {
        case .column: .atom
        case .comparison: .comparison
        case .fragment(_, let precedence): precedence
        }
    }

    /// The expression as segments, for the paths that combine or inspect expressions.
    @usableFromInline
    package var fragment: SQLFragment {
        switch node {
        case .column(let name): SQLFragment([.identifier(name)])
        case .comparison(let name, let op, let value):
            if let kind = op.patternKind {
                SQLFragment([
                    .patternMatch(SQLPatternMatch(kind, operand: [.identifier(name)], pattern: [.binding(value)]))
                ])
            } else {
                SQLFragment([.identifier(name), .sql(op.sql.description), .binding(value)])
            }
        case .fragment(let fragment, _): fragment
        }
    }

    @inlinable
    public var sqlExpression: SQLExpression { self }

    /// A bound value, as an expression.
    ///
    /// ```swift
    /// Column("a") == SQLExpression.value(1)   // "a" = ?
    /// ```
    public static func value(_ value: some DatabaseValueConvertible) -> SQLExpression {
        SQLExpression(SQLFragment([.binding(of: value)]), precedence: .atom)
    }

    /// The SQL text of the expression, with `?` for each value: for logs and tests.
    public var sql: String {
        let renderer = SQLRenderer(capacity: 64)
        renderer.append(self)
        return renderer.sql
    }

    /// The values bound to the expression's `?` placeholders, in order.
    public var arguments: [DatabaseValue] {
        let renderer = SQLRenderer(capacity: 64)
        renderer.append(self)
        return renderer.arguments
    }

    // Two expressions are equal when they render the same SQL with the same arguments, however
    // they are stored. Names and text compare by their bytes, as SQLite compares them: an
    // expression is a cache key, and `"\u{E9}"` and `"e\u{301}"` match other rows.

    public static func == (lhs: SQLExpression, rhs: SQLExpression) -> Bool {
        switch (lhs.node, rhs.node) {
        case (.column(let left), .column(let right)):
            return left.hasSameBytes(as: right)
        case (
            .comparison(let leftName, let leftOp, let leftValue),
            .comparison(let rightName, let rightOp, let rightValue)
        ):
            return leftOp == rightOp && leftName.hasSameBytes(as: rightName) && leftValue.isIdentical(to: rightValue)
        default:
            return lhs.precedence == rhs.precedence && lhs.fragment == rhs.fragment
        }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(precedence)
        // The segments `fragment` would make, hashed without making them.
        switch node {
        case .column(let name):
            SQLFragment.Segment.identifier(name).hash(into: &hasher)
        case .comparison(let name, let op, let value):
            if let kind = op.patternKind {
                hasher.combine(7 as UInt8)
                SQLPatternMatch.hash(kind, operand: [.identifier(name)], pattern: [.binding(value)], into: &hasher)
                return
            }
            SQLFragment.Segment.identifier(name).hash(into: &hasher)
            SQLFragment.Segment.sql(op.sql.description).hash(into: &hasher)
            SQLFragment.Segment.binding(value).hash(into: &hasher)
        case .fragment(let fragment, _):
            fragment.hash(into: &hasher)
        }
    }

    // MARK: Building

    /// `operand` followed by its segments, parenthesized when it binds more loosely than the
    /// operator around it requires.
    @usableFromInline
    package static func append(_ operand: SQLExpression, to segments: inout [SQLFragment.Segment], parenthesized: Bool)
    {
        if parenthesized {
            segments.append(.sql("("))
            segments.append(contentsOf: operand.fragment.segments)
            segments.append(.sql(")"))
        } else {
            segments.append(contentsOf: operand.fragment.segments)
        }
    }

    /// `lhs op rhs` for comparisons of two expressions: compound operands get parentheses.
    @usableFromInline
    package static func comparison(_ lhs: SQLExpression, _ op: SQLComparisonOperator, _ rhs: SQLExpression)
        -> SQLExpression
    {
        var pattern: [SQLFragment.Segment] = []
        append(rhs, to: &pattern, parenthesized: rhs.precedence != .atom)
        return comparison(lhs, op, rhs: pattern)
    }

    /// `lhs op rhs`, the right operand's segments made: `op` is an operator or a pattern match.
    @usableFromInline
    package static func comparison(_ lhs: SQLExpression, _ op: SQLComparisonOperator, rhs: [SQLFragment.Segment])
        -> SQLExpression
    {
        var segments: [SQLFragment.Segment] = []
        segments.reserveCapacity(lhs.fragment.segments.count + rhs.count + 3)
        append(lhs, to: &segments, parenthesized: lhs.precedence != .atom)
        if let kind = op.patternKind {
            return SQLExpression(
                SQLFragment([.patternMatch(SQLPatternMatch(kind, operand: segments, pattern: rhs))]),
                precedence: .comparison)
        }
        segments.append(.sql(op.sql.description))
        segments.append(contentsOf: rhs)
        return SQLExpression(SQLFragment(segments), precedence: .comparison)
    }

    /// `lhs op ?` with the value bound: the shape of nearly every filter. A column builds it
    /// inline, without allocating; the cast folds away when the operator is specialized for
    /// `Column`.
    @inlinable
    package static func comparison(_ lhs: some SQLExpressible, _ op: SQLComparisonOperator, value: DatabaseValue)
        -> SQLExpression
    {
        if let column = lhs as? Column {
            return SQLExpression(.comparison(column: column.name, op, value))
        }
        return comparison(lhs.sqlExpression, op, value: value)
    }

    @usableFromInline
    package static func comparison(_ lhs: SQLExpression, _ op: SQLComparisonOperator, value: DatabaseValue)
        -> SQLExpression
    {
        if case .column(let name) = lhs.node {
            return SQLExpression(.comparison(column: name, op, value))
        }
        return comparison(lhs, op, rhs: [.binding(value)])
    }

    /// `lhs op ?` with a Swift value's segment (``SQLFragment/Segment/binding(of:)``): its stored
    /// form bound, or when it has none, an expression that throws when its request runs
    /// (operators cannot throw).
    @inlinable
    package static func comparison(
        _ lhs: some SQLExpressible, _ op: SQLComparisonOperator, segment: SQLFragment.Segment
    ) -> SQLExpression {
        switch segment {
        case .binding(let bound): return comparison(lhs, op, value: bound)
        case let invalid:
            return comparison(lhs.sqlExpression, op, rhs: [invalid])
        }
    }

    /// `operand` followed by a postfix such as ` IS NULL`.
    @usableFromInline
    package static func postfix(_ operand: SQLExpression, _ text: String) -> SQLExpression {
        var segments: [SQLFragment.Segment] = []
        segments.reserveCapacity(operand.fragment.segments.count + 3)
        append(operand, to: &segments, parenthesized: operand.precedence != .atom)
        segments.append(.sql(text))
        return SQLExpression(SQLFragment(segments), precedence: .comparison)
    }

    /// `lhs AND rhs` / `lhs OR rhs`. The same connective nests without parentheses, since it is
    /// associative; the other one gets them, which SQL would not need but people reading logs do.
    @usableFromInline
    package static func connective(_ lhs: SQLExpression, _ rhs: SQLExpression, _ kind: Precedence) -> SQLExpression {
        func needsParentheses(_ operand: SQLExpression) -> Bool {
            operand.precedence.rawValue <= Precedence.and.rawValue && operand.precedence != kind
        }
        var segments: [SQLFragment.Segment] = []
        segments.reserveCapacity(lhs.fragment.segments.count + rhs.fragment.segments.count + 5)
        append(lhs, to: &segments, parenthesized: needsParentheses(lhs))
        segments.append(.sql(kind == .and ? " AND " : " OR "))
        append(rhs, to: &segments, parenthesized: needsParentheses(rhs))
        return SQLExpression(SQLFragment(segments), precedence: kind)
    }
}

extension SQLExpression {
    /// How many operands ``all(_:)`` and ``any(_:)`` join in one flat chain.
    public static let chainGroupSize = 16

    /// The operands joined by AND, however many there are; true when there are none.
    ///
    /// SQLite parses `a AND b AND c …` into a tree as deep as the chain is long, and refuses
    /// trees deeper than 1,000 levels. Up to ``chainGroupSize`` operands make one flat chain;
    /// more are split into parenthesized chains of that size, and those again, so the tree is
    /// balanced: `n` operands nest ⌈log₁₆ n⌉ - 1 levels of parentheses. Building it does not
    /// recurse.
    ///
    /// ```swift
    /// SQLExpression.all(ids.map { Column("id") != $0 })
    /// ```
    public static func all(_ operands: [SQLExpression]) -> SQLExpression {
        balanced(operands, .and)
    }

    /// The operands joined by OR, as balanced as in ``all(_:)``; false when there are none.
    public static func any(_ operands: [SQLExpression]) -> SQLExpression {
        balanced(operands, .or)
    }

    private static func balanced(_ operands: [SQLExpression], _ kind: Precedence) -> SQLExpression {
        guard !operands.isEmpty else {
            return SQLExpression(SQLFragment([.boolean(kind == .and)]), precedence: .atom)
        }
        var level = operands
        while level.count > chainGroupSize {
            var groups: [SQLExpression] = []
            groups.reserveCapacity((level.count + chainGroupSize - 1) / chainGroupSize)
            for start in stride(from: 0, to: level.count, by: chainGroupSize) {
                let chain = self.chain(level[start..<min(start + chainGroupSize, level.count)], kind)
                var segments: [SQLFragment.Segment] = [.sql("(")]
                segments.append(contentsOf: chain.fragment.segments)
                segments.append(.sql(")"))
                groups.append(SQLExpression(SQLFragment(segments), precedence: .atom))
            }
            level = groups
        }
        return chain(level[...], kind)
    }

    /// The operands joined by one connective, left to right, as ``connective(_:_:_:)`` joins two.
    private static func chain(_ operands: ArraySlice<SQLExpression>, _ kind: Precedence) -> SQLExpression {
        if operands.count == 1, let only = operands.first { return only }
        var segments: [SQLFragment.Segment] = []
        segments.reserveCapacity(operands.reduce(0) { $0 + $1.fragment.segments.count + 3 })
        for operand in operands {
            if !segments.isEmpty { segments.append(.sql(kind == .and ? " AND " : " OR ")) }
            append(
                operand, to: &segments,
                parenthesized: operand.precedence.rawValue <= Precedence.and.rawValue && operand.precedence != kind)
        }
        return SQLExpression(SQLFragment(segments), precedence: kind)
    }
}

/// The binary operators that compare an expression with another or with a bound value.
@usableFromInline
package enum SQLComparisonOperator: UInt8, Hashable, Sendable {
    case equal, notEqual, less, lessOrEqual, greater, greaterOrEqual, like, glob

    /// The operator with the spaces around it.
    @usableFromInline
    package var sql: StaticString {
        switch self {
        case .equal: " = "
        case .notEqual: " <> "
        case .less: " < "
        case .lessOrEqual: " <= "
        case .greater: " > "
        case .greaterOrEqual: " >= "
        case .like: " LIKE "
        case .glob: " GLOB "
        }
    }

    /// The pattern match the operator is, whose operands the dialects render together.
    @usableFromInline
    package var patternKind: SQLPatternMatch.Kind? {
        switch self {
        case .like: .like
        case .glob: .glob
        case .equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual: nil
        }
    }
}

extension SQLExpression: CustomStringConvertible {
    /// The SQL with its arguments, for logs: `"done" = ? [0]`.
    public var description: String {
        let renderer = SQLRenderer(capacity: 64)
        renderer.append(self)
        if renderer.arguments.isEmpty { return renderer.sql }
        return renderer.sql + " [" + renderer.arguments.map(\.description).joined(separator: ", ") + "]"
    }
}
