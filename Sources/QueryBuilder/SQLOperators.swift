import SQLCore

// Comparison and logical operators on columns and expressions.
//
// Values on the right are always bound (`?`), never written into the SQL. Comparing with NULL
// (`== nil`, or a Swift value that is nil) renders `IS NULL` / `IS NOT NULL`, which is what a Swift
// reader means: `= NULL` would match nothing.

extension SQLExpressible {
    // MARK: Comparing with Swift values

    /// `lhs = ?`, or `lhs IS NULL` when the value is nil.
    ///
    /// ```swift
    /// Column("done") == false          // "done" = ?   [0]
    /// Column("due") == nil             // "due" IS NULL
    /// ```
    @inlinable
    public static func == (lhs: Self, rhs: some DatabaseValueConvertible) -> SQLExpression {
        let segment = SQLFragment.Segment.binding(of: rhs)
        if case .binding(.null) = segment { return SQLExpression.postfix(lhs.sqlExpression, " IS NULL") }
        return SQLExpression.comparison(lhs, .equal, segment: segment)
    }

    /// `lhs <> ?`, or `lhs IS NOT NULL` when the value is nil.
    @inlinable
    public static func != (lhs: Self, rhs: some DatabaseValueConvertible) -> SQLExpression {
        let segment = SQLFragment.Segment.binding(of: rhs)
        if case .binding(.null) = segment { return SQLExpression.postfix(lhs.sqlExpression, " IS NOT NULL") }
        return SQLExpression.comparison(lhs, .notEqual, segment: segment)
    }

    /// `lhs < ?`. Comparing with NULL is never true, as in SQL.
    @inlinable
    public static func < (lhs: Self, rhs: some DatabaseValueConvertible) -> SQLExpression {
        SQLExpression.comparison(lhs, .less, segment: .binding(of: rhs))
    }

    /// `lhs <= ?`.
    @inlinable
    public static func <= (lhs: Self, rhs: some DatabaseValueConvertible) -> SQLExpression {
        SQLExpression.comparison(lhs, .lessOrEqual, segment: .binding(of: rhs))
    }

    /// `lhs > ?`.
    ///
    /// ```swift
    /// Column("timestamp") > filterDate ?? .distantPast
    /// ```
    @inlinable
    public static func > (lhs: Self, rhs: some DatabaseValueConvertible) -> SQLExpression {
        SQLExpression.comparison(lhs, .greater, segment: .binding(of: rhs))
    }

    /// `lhs >= ?`.
    @inlinable
    public static func >= (lhs: Self, rhs: some DatabaseValueConvertible) -> SQLExpression {
        SQLExpression.comparison(lhs, .greaterOrEqual, segment: .binding(of: rhs))
    }

    /// `lhs IS NULL`.
    @inlinable
    public static func == (lhs: Self, rhs: _OptionalNilComparisonType) -> SQLExpression {
        SQLExpression.postfix(lhs.sqlExpression, " IS NULL")
    }

    /// `lhs IS NOT NULL`.
    @inlinable
    public static func != (lhs: Self, rhs: _OptionalNilComparisonType) -> SQLExpression {
        SQLExpression.postfix(lhs.sqlExpression, " IS NOT NULL")
    }

    // MARK: Comparing two expressions

    /// `lhs = rhs`, such as two columns of the same row.
    @inlinable
    public static func == (lhs: Self, rhs: some SQLExpressible) -> SQLExpression {
        SQLExpression.comparison(lhs.sqlExpression, .equal, rhs.sqlExpression)
    }

    /// `lhs <> rhs`.
    @inlinable
    public static func != (lhs: Self, rhs: some SQLExpressible) -> SQLExpression {
        SQLExpression.comparison(lhs.sqlExpression, .notEqual, rhs.sqlExpression)
    }

    /// `lhs < rhs`.
    @inlinable
    public static func < (lhs: Self, rhs: some SQLExpressible) -> SQLExpression {
        SQLExpression.comparison(lhs.sqlExpression, .less, rhs.sqlExpression)
    }

    /// `lhs <= rhs`.
    @inlinable
    public static func <= (lhs: Self, rhs: some SQLExpressible) -> SQLExpression {
        SQLExpression.comparison(lhs.sqlExpression, .lessOrEqual, rhs.sqlExpression)
    }

    /// `lhs > rhs`.
    @inlinable
    public static func > (lhs: Self, rhs: some SQLExpressible) -> SQLExpression {
        SQLExpression.comparison(lhs.sqlExpression, .greater, rhs.sqlExpression)
    }

    /// `lhs >= rhs`.
    @inlinable
    public static func >= (lhs: Self, rhs: some SQLExpressible) -> SQLExpression {
        SQLExpression.comparison(lhs.sqlExpression, .greaterOrEqual, rhs.sqlExpression)
    }

    // MARK: Logic (SQL's three-valued logic: NULL is "unknown")

    /// `lhs AND rhs`.
    @inlinable
    public static func && (lhs: Self, rhs: some SQLExpressible) -> SQLExpression {
        SQLExpression.connective(lhs.sqlExpression, rhs.sqlExpression, .and)
    }

    /// `lhs OR rhs`.
    @inlinable
    public static func || (lhs: Self, rhs: some SQLExpressible) -> SQLExpression {
        SQLExpression.connective(lhs.sqlExpression, rhs.sqlExpression, .or)
    }

    /// `NOT operand`. `NOT NULL` is NULL, so a row where the operand is unknown stays filtered out.
    @inlinable
    public static prefix func ! (operand: Self) -> SQLExpression {
        SQLExpression.prefixNot(operand.sqlExpression)
    }
}

extension SQLExpression {
    @usableFromInline
    package static func prefixNot(_ operand: SQLExpression) -> SQLExpression {
        var segments: [SQLFragment.Segment] = [.sql("NOT ")]
        segments.reserveCapacity(operand.fragment.segments.count + 3)
        append(operand, to: &segments, parenthesized: operand.precedence != .atom)
        return SQLExpression(SQLFragment(segments), precedence: .not)
    }
}
