/// Anything a request can sort by: a ``Column`` or ``SQLExpression`` (ascending), or an explicit
/// ``SQLOrdering`` such as `Column("title").desc`.
///
/// `sort` takes `any SQLOrderingTerm`, so both kinds mix, even in one ternary:
///
/// ```swift
/// .sort(order == .forward ? Column("timestamp") : Column("timestamp").desc)
/// ```
public protocol SQLOrderingTerm: Sendable {
    /// The ordering this term stands for.
    var sqlOrdering: SQLOrdering { get }
}

/// One `ORDER BY` term: an expression, a direction, and where NULLs go.
///
/// ```swift
/// Column("due").asc.nullsLast        // "due" ASC NULLS LAST
/// Column("priority").desc            // "priority" DESC (NULLs last: SQLite's default for DESC)
/// ```
///
/// SQLite puts NULLs first when ascending and last when descending, unless told otherwise with
/// ``nullsFirst`` or ``nullsLast`` (SQLite 3.30 and later).
public struct SQLOrdering: Hashable, Sendable, SQLOrderingTerm {
    /// The sort direction.
    public enum Direction: Hashable, Sendable {
        /// Smallest first (`ASC`).
        case ascending
        /// Largest first (`DESC`).
        case descending
    }

    /// Where NULLs sort.
    public enum NullPlacement: Hashable, Sendable {
        /// NULLs before every value (`NULLS FIRST`).
        case first
        /// NULLs after every value (`NULLS LAST`).
        case last
    }

    /// What is sorted by.
    public let expression: SQLExpression
    /// The direction; nil renders no keyword, which SQLite reads as ascending.
    public let direction: Direction?
    /// Where NULLs go; nil leaves SQLite's default.
    public let nullPlacement: NullPlacement?

    /// An ordering term.
    public init(_ expression: SQLExpression, direction: Direction?, nullPlacement: NullPlacement? = nil) {
        self.expression = expression
        self.direction = direction
        self.nullPlacement = nullPlacement
    }

    public var sqlOrdering: SQLOrdering { self }

    /// The same ordering with NULLs before every value.
    public var nullsFirst: SQLOrdering {
        SQLOrdering(expression, direction: direction ?? .ascending, nullPlacement: .first)
    }

    /// The same ordering with NULLs after every value.
    public var nullsLast: SQLOrdering {
        SQLOrdering(expression, direction: direction ?? .ascending, nullPlacement: .last)
    }

    /// The same expression, sorted the other way. NULL placement flips too, unless it was explicit.
    public var reversed: SQLOrdering {
        SQLOrdering(
            expression, direction: direction == .descending ? .ascending : .descending, nullPlacement: nullPlacement)
    }

    package func render(into renderer: SQLRenderer) {
        let parenthesized = expression.precedence != .atom
        if parenthesized { renderer.append("(") }
        renderer.append(expression)
        if parenthesized { renderer.append(")") }
        switch direction {
        case nil: break
        case .ascending: renderer.append(" ASC")
        case .descending: renderer.append(" DESC")
        }
        switch nullPlacement {
        case nil:
            // SQLite sorts NULLs as the smallest values; PostgreSQL, as the largest.
            guard renderer.dialect == .postgreSQL else { break }
            renderer.append(direction == .descending ? " NULLS LAST" : " NULLS FIRST")
        case .first: renderer.append(" NULLS FIRST")
        case .last: renderer.append(" NULLS LAST")
        }
    }
}

extension SQLExpressible {
    /// Ascending: `expression ASC`.
    public var asc: SQLOrdering { SQLOrdering(sqlExpression, direction: .ascending) }

    /// Descending: `expression DESC`.
    public var desc: SQLOrdering { SQLOrdering(sqlExpression, direction: .descending) }

    /// Ascending with NULLs first: `expression ASC NULLS FIRST`.
    public var nullsFirst: SQLOrdering { asc.nullsFirst }

    /// Ascending with NULLs last: `expression ASC NULLS LAST`.
    public var nullsLast: SQLOrdering { asc.nullsLast }
}
