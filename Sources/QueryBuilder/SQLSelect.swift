import SQLCore

/// The parts of a `SELECT` on one table, and the one place they become SQL.
///
/// ``QueryInterfaceRequest`` wraps it with the type its rows decode as; the parts themselves do
/// not depend on that type, so rendering is compiled once rather than for every record type.
@usableFromInline
package struct SQLSelect: Hashable, Sendable {
    /// The table, unquoted.
    @usableFromInline package var tableName: String
    /// Selected expressions; empty selects `*`.
    @usableFromInline package var selection: [SQLExpression] = []
    /// The filters so far, ANDed.
    @usableFromInline package var predicate: SQLExpression?
    @usableFromInline package var orderings: [SQLOrdering] = []
    @usableFromInline package var limit: Int?
    @usableFromInline var offset: Int?

    @inlinable
    package init(tableName: String) {
        self.tableName = tableName
    }

    // The table's name compares by its bytes, as SQLite reads names; the expressions do too.

    @usableFromInline
    package static func == (lhs: SQLSelect, rhs: SQLSelect) -> Bool {
        lhs.tableName.hasSameBytes(as: rhs.tableName) && lhs.selection == rhs.selection
            && lhs.predicate == rhs.predicate && lhs.orderings == rhs.orderings && lhs.limit == rhs.limit
            && lhs.offset == rhs.offset
    }

    @usableFromInline
    package func hash(into hasher: inout Hasher) {
        tableName.hashBytes(into: &hasher)
        hasher.combine(selection)
        hasher.combine(predicate)
        hasher.combine(orderings)
        hasher.combine(limit)
        hasher.combine(offset)
    }

    /// Every column name the query mentions, for schema checks.
    package var columnNames: [String] {
        var columns: [String] = []
        for expression in selection { columns += expression.fragment.identifiers }
        if let predicate { columns += predicate.fragment.identifiers }
        for ordering in orderings { columns += ordering.expression.fragment.identifiers }
        return columns
    }

    @usableFromInline
    package enum Rendering {
        /// The request as written.
        case all
        /// The first row only: `LIMIT 1` unless the request has its own limit.
        case one
        /// `SELECT count(*)` of the rows the request would return.
        case count
    }

    package func render(_ rendering: Rendering, into renderer: SQLRenderer) {
        if rendering == .count {
            if limit != nil {
                // LIMIT and OFFSET apply to the rows, so count the limited rows themselves.
                renderer.append("SELECT count(*) FROM (")
                renderSelect(into: renderer)
                renderLimit(into: renderer, one: false)
                // PostgreSQL before 16 requires a subquery in FROM to be named.
                renderer.append(renderer.dialect == .postgreSQL ? ") AS \"rows\"" : ")")
            } else {
                renderer.append("SELECT count(*) FROM ")
                renderer.appendIdentifier(tableName)
                renderWhere(into: renderer)
            }
            return
        }
        renderSelect(into: renderer)
        renderLimit(into: renderer, one: rendering == .one)
    }

    private func renderSelect(into renderer: SQLRenderer) {
        if selection.isEmpty {
            renderer.append("SELECT * FROM ")
        } else {
            renderer.append("SELECT ")
            for (index, expression) in selection.enumerated() {
                if index > 0 { renderer.append(", ") }
                renderer.append(expression)
            }
            renderer.append(" FROM ")
        }
        renderer.appendIdentifier(tableName)
        renderWhere(into: renderer)
        if !orderings.isEmpty {
            renderer.append(" ORDER BY ")
            for (index, ordering) in orderings.enumerated() {
                if index > 0 { renderer.append(", ") }
                ordering.render(into: renderer)
            }
        }
    }

    private func renderWhere(into renderer: SQLRenderer) {
        if let predicate {
            renderer.append(" WHERE ")
            renderer.append(predicate)
        }
    }

    private func renderLimit(into renderer: SQLRenderer, one: Bool) {
        if let limit {
            renderer.append(" LIMIT ")
            renderer.appendBinding(.integer(Int64(limit)))
            if let offset {
                renderer.append(" OFFSET ")
                renderer.appendBinding(.integer(Int64(offset)))
            }
        } else if one {
            // A constant, not a value: it keeps the SQL text of every fetchOne of a shape equal.
            renderer.append(" LIMIT 1")
        }
    }
}
