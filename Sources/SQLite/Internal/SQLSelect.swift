/// The parts of a `SELECT` on one table, and the one place they become SQL.
///
/// ``QueryInterfaceRequest`` wraps it with the type its rows decode as; the parts themselves do
/// not depend on that type, so rendering is compiled once rather than for every record type.
@usableFromInline
struct SQLSelect: Hashable, Sendable {
    /// The table, unquoted.
    @usableFromInline var tableName: String
    /// Selected expressions; empty selects `*`.
    @usableFromInline var selection: [SQLExpression] = []
    /// The filters so far, ANDed.
    @usableFromInline var predicate: SQLExpression?
    @usableFromInline var orderings: [SQLOrdering] = []
    @usableFromInline var limit: Int?
    @usableFromInline var offset: Int?

    @inlinable
    init(tableName: String) {
        self.tableName = tableName
    }

    /// Every column name the query mentions, for schema checks.
    var columnNames: [String] {
        var columns: [String] = []
        for expression in selection { columns += expression.fragment.identifiers }
        if let predicate { columns += predicate.fragment.identifiers }
        for ordering in orderings { columns += ordering.expression.fragment.identifiers }
        return columns
    }

    @usableFromInline
    enum Rendering {
        /// The request as written.
        case all
        /// The first row only: `LIMIT 1` unless the request has its own limit.
        case one
        /// `SELECT count(*)` of the rows the request would return.
        case count
    }

    func render(_ rendering: Rendering, into renderer: SQLRenderer) {
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

extension Database {
    /// The cached statement for `select`, with its arguments bound.
    ///
    /// The SQL renders into the connection's reusable buffers and the statement is found by
    /// those bytes, so running a request whose shape ran before allocates nothing and makes
    /// no `String`.
    @usableFromInline
    func boundStatement(for select: SQLSelect, _ rendering: SQLSelect.Rendering) throws -> Statement {
        // Rendering never reenters the connection, so the buffers have one user at a time.
        defer { renderer.removeAll() }
        select.render(rendering, into: renderer)
        let statement = try cachedStatement(utf8: renderer.bytes)
        try statement.bind(renderer.arguments)
        if !tracker.statementRecordings.isEmpty {
            tracker.builderStatement = (statement.handle, select.tableName, select.predicate)
        }
        return statement
    }
}
