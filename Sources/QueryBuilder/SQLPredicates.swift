import SQLCore

// Membership, ranges and pattern matching.

extension SQLExpressible {
    /// `expression IN (?, ?, …)`. An empty list matches no row (SQLite accepts `IN ()`).
    ///
    /// ```swift
    /// Column("priority").in([1, 2, 3])
    /// ```
    ///
    /// The SQL depends on the number of values only, so lists of the same length share a cached
    /// statement.
    public func `in`<S: Sequence>(_ values: S) -> SQLExpression where S.Element: DatabaseValueConvertible {
        let lhs = sqlExpression
        var segments: [SQLFragment.Segment] = []
        segments.reserveCapacity(lhs.fragment.segments.count + values.underestimatedCount * 2 + 4)
        SQLExpression.append(lhs, to: &segments, parenthesized: lhs.precedence != .atom)
        var first = true
        for value in values {
            segments.append(.sql(first ? " IN (" : ", "))
            first = false
            segments.append(.binding(of: value))
        }
        segments.append(first ? .emptyList : .sql(")"))
        return SQLExpression(SQLFragment(segments), precedence: .comparison)
    }

    /// `expression BETWEEN ? AND ?`: both bounds included.
    ///
    /// ```swift
    /// Column("priority").between(1, 3)
    /// ```
    public func between(_ lower: some DatabaseValueConvertible, _ upper: some DatabaseValueConvertible) -> SQLExpression
    {
        let lhs = sqlExpression
        var segments: [SQLFragment.Segment] = []
        segments.reserveCapacity(lhs.fragment.segments.count + 6)
        SQLExpression.append(lhs, to: &segments, parenthesized: lhs.precedence != .atom)
        segments.append(.sql(" BETWEEN "))
        segments.append(.binding(of: lower))
        segments.append(.sql(" AND "))
        segments.append(.binding(of: upper))
        return SQLExpression(SQLFragment(segments), precedence: .comparison)
    }

    /// `expression LIKE ?`: `%` matches any run of characters, `_` exactly one; letters match
    /// regardless of case for ASCII only (SQLite's default).
    ///
    /// The pattern is used as written; to match user text literally, use ``contains(_:)`` or
    /// ``hasPrefix(_:)``, which escape it.
    public func like(_ pattern: String) -> SQLExpression {
        SQLExpression.comparison(sqlExpression, .like, value: .text(pattern))
    }

    /// `expression GLOB ?`: Unix-style `*`, `?` and `[…]`, case-sensitive.
    public func glob(_ pattern: String) -> SQLExpression {
        SQLExpression.comparison(sqlExpression, .glob, value: .text(pattern))
    }

    /// True when the text contains `substring`, with `%`, `_` and `\` in it matched literally:
    /// `expression LIKE ? ESCAPE '\'`. Case-insensitive for ASCII letters, like LIKE.
    ///
    /// ```swift
    /// Column("title").contains("50%_off")   // "title" LIKE ? ESCAPE '\'   ['%50\%\_off%']
    /// ```
    public func contains(_ substring: String) -> SQLExpression {
        escapedLike("%" + Self.escapeLikePattern(substring) + "%")
    }

    /// True when the text starts with `prefix`, matched literally like ``contains(_:)``.
    public func hasPrefix(_ prefix: String) -> SQLExpression {
        escapedLike(Self.escapeLikePattern(prefix) + "%")
    }

    private func escapedLike(_ pattern: String) -> SQLExpression {
        let lhs = sqlExpression
        var operand: [SQLFragment.Segment] = []
        SQLExpression.append(lhs, to: &operand, parenthesized: lhs.precedence != .atom)
        let match = SQLPatternMatch(.likeEscapedByBackslash, operand: operand, pattern: [.binding(.text(pattern))])
        return SQLExpression(SQLFragment([.patternMatch(match)]), precedence: .comparison)
    }

    /// `text` with LIKE's wildcards and the escape character itself escaped by `\`.
    package static func escapeLikePattern(_ text: String) -> String {
        var escaped = String()
        escaped.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            if scalar == "%" || scalar == "_" || scalar == "\\" { escaped.unicodeScalars.append("\\") }
            escaped.unicodeScalars.append(scalar)
        }
        return escaped
    }
}
