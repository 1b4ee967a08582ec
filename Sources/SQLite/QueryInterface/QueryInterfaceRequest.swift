/// A `SELECT` on one table, built step by step and rendered to SQL only when it runs.
///
/// ```swift
/// let request = Item.all()
///     .filter(Column("done") == false)
///     .filter(Column("priority") >= 2)          // chained filters are ANDed
///     .sort(Column("created_at").desc)
///     .limit(50)
/// request.sql        // SELECT * FROM "items" WHERE "done" = ? AND "priority" >= ? ORDER BY "created_at" DESC LIMIT ?
/// request.arguments  // [0, 2, 50]
/// let items = try request.fetchAll(db)
/// ```
///
/// A request is a value, `Hashable` and `Sendable`: equal requests render equal SQL, and the
/// same shape with other values renders the same SQL text with other arguments, so the
/// connection's prepared-statement cache serves it.
///
/// `RowDecoder` is how rows decode: the record type for `Item.all()`, ``Row`` for
/// ``Table/all()``.
public struct QueryInterfaceRequest<RowDecoder>: Hashable, Sendable {
    /// The table the request reads, unquoted.
    public let tableName: String
    /// Selected expressions; empty selects `*`.
    @usableFromInline var selection: [SQLExpression] = []
    /// The filters so far, ANDed.
    @usableFromInline var predicate: SQLExpression?
    @usableFromInline var orderings: [SQLOrdering] = []
    @usableFromInline var limitCount: Int?
    @usableFromInline var offsetCount: Int?

    /// A request for every row of `tableName`.
    public init(tableName: String) {
        self.tableName = tableName
    }

    // MARK: Refining

    /// Keeps the rows where `predicate` is true (not false, not NULL). Chained filters are ANDed.
    ///
    /// ```swift
    /// Item.all().filter(Column("title").contains(search) || Column("note").contains(search))
    /// ```
    @inlinable
    public func filter(_ predicate: some SQLExpressible) -> Self {
        var request = self
        let expression = predicate.sqlExpression
        if let existing = request.predicate {
            request.predicate = SQLExpression.connective(existing, expression, .and)
        } else {
            request.predicate = expression
        }
        return request
    }

    /// Sorts by these terms, replacing any earlier sort. Columns and expressions sort ascending.
    ///
    /// ```swift
    /// .sort(Column("priority").desc, Column("title"))
    /// .sort(order == .forward ? Column("timestamp") : Column("timestamp").desc)
    /// ```
    @inlinable
    public func sort(_ orderings: any SQLOrderingTerm...) -> Self {
        sort(orderings)
    }

    /// Sorts by these terms, replacing any earlier sort.
    @inlinable
    public func sort(_ orderings: [any SQLOrderingTerm]) -> Self {
        var request = self
        request.orderings = orderings.map(\.sqlOrdering)
        return request
    }

    /// At most `limit` rows, after skipping `offset` rows when given. Both are bound values.
    @inlinable
    public func limit(_ limit: Int, offset: Int? = nil) -> Self {
        var request = self
        request.limitCount = limit
        request.offsetCount = offset
        return request
    }

    /// Selects these columns or expressions instead of `*`, replacing any earlier selection.
    ///
    /// ```swift
    /// Item.all().select(Column("id"), Column("title"))
    /// ```
    ///
    /// The decoder must be able to read the selected columns; to fetch plain values, change it
    /// with ``asRequest(of:)``.
    public func select(_ columns: any SQLExpressible...) -> Self {
        select(columns)
    }

    /// Selects these columns or expressions instead of `*`.
    public func select(_ columns: [any SQLExpressible]) -> Self {
        var request = self
        request.selection = columns.map(\.sqlExpression)
        return request
    }

    /// The same query, decoding rows as `type`.
    ///
    /// ```swift
    /// let titles = try Item.all().select(Column("title")).asRequest(of: String.self).fetchAll(db)
    /// ```
    public func asRequest<T>(of type: T.Type) -> QueryInterfaceRequest<T> {
        var request = QueryInterfaceRequest<T>(tableName: tableName)
        request.selection = selection
        request.predicate = predicate
        request.orderings = orderings
        request.limitCount = limitCount
        request.offsetCount = offsetCount
        return request
    }

    // MARK: SQL

    /// The SQL that ``fetchAll(_:)`` runs, with `?` for each argument: for logs and `--explain`.
    public var sql: String { render(.all).sql }

    /// The values bound to ``sql``'s placeholders, in order.
    public var arguments: [SQLiteValue] { render(.all).arguments }

    /// Every name the request uses: the table, then each column it mentions.
    var identifiers: (table: String, columns: [String]) {
        var columns: [String] = []
        for expression in selection { columns += expression.fragment.identifiers }
        if let predicate { columns += predicate.fragment.identifiers }
        for ordering in orderings { columns += ordering.expression.fragment.identifiers }
        return (tableName, columns)
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

    /// The only place requests become SQL.
    @usableFromInline
    func render(_ rendering: Rendering) -> SQLRenderer {
        var bindings = (predicate?.fragment.bindingCount ?? 0) + (limitCount == nil ? 0 : 2)
        for expression in selection { bindings += expression.fragment.bindingCount }
        for ordering in orderings { bindings += ordering.expression.fragment.bindingCount }
        var renderer = SQLRenderer(argumentCapacity: bindings)
        if rendering == .count {
            if limitCount != nil {
                // LIMIT and OFFSET apply to the rows, so count the limited rows themselves.
                renderer.append("SELECT count(*) FROM (")
                renderSelect(into: &renderer, withOrdering: true)
                renderLimit(into: &renderer, one: false)
                renderer.append(")")
            } else {
                renderer.append("SELECT count(*) FROM ")
                renderer.appendIdentifier(tableName)
                renderWhere(into: &renderer)
            }
            return renderer
        }
        renderSelect(into: &renderer, withOrdering: true)
        renderLimit(into: &renderer, one: rendering == .one)
        return renderer
    }

    private func renderSelect(into renderer: inout SQLRenderer, withOrdering: Bool) {
        renderer.append("SELECT ")
        if selection.isEmpty {
            renderer.append("*")
        } else {
            for (index, expression) in selection.enumerated() {
                if index > 0 { renderer.append(", ") }
                renderer.append(expression.fragment)
            }
        }
        renderer.append(" FROM ")
        renderer.appendIdentifier(tableName)
        renderWhere(into: &renderer)
        if withOrdering && !orderings.isEmpty {
            renderer.append(" ORDER BY ")
            for (index, ordering) in orderings.enumerated() {
                if index > 0 { renderer.append(", ") }
                ordering.render(into: &renderer)
            }
        }
    }

    private func renderWhere(into renderer: inout SQLRenderer) {
        if let predicate {
            renderer.append(" WHERE ")
            renderer.append(predicate.fragment)
        }
    }

    private func renderLimit(into renderer: inout SQLRenderer, one: Bool) {
        if let limitCount {
            renderer.append(" LIMIT ")
            renderer.appendBinding(.integer(Int64(limitCount)))
            if let offsetCount {
                renderer.append(" OFFSET ")
                renderer.appendBinding(.integer(Int64(offsetCount)))
            }
        } else if one {
            // A constant, not a value: it keeps the SQL text of every fetchOne of a shape equal.
            renderer.append(" LIMIT 1")
        }
    }
}

extension QueryInterfaceRequest: CustomStringConvertible {
    /// The SQL and its arguments, for logs: `SELECT * FROM "items" WHERE "id" = ? [42]`.
    public var description: String {
        let rendered = render(.all)
        if rendered.arguments.isEmpty { return rendered.sql }
        return rendered.sql + " [" + rendered.arguments.map(\.description).joined(separator: ", ") + "]"
    }
}
