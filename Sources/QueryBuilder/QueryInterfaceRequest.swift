import SQLCore

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
/// A request is a value, `Hashable` and `Sendable`: equal requests render the same SQL bytes and
/// bind the same values (text compared by its bytes, as SQLite compares it). The same shape with
/// other values renders the same SQL text with other arguments, so the connection's
/// prepared-statement cache serves it.
///
/// `RowValue` is how rows decode: the record type for `Item.all()`, `Row` for
/// ``Table/all()``.
public struct QueryInterfaceRequest<RowValue>: Hashable, Sendable {
    @usableFromInline package var select: SQLSelect

    /// The table the request reads, unquoted.
    public var tableName: String { select.tableName }

    /// A request for every row of `tableName`.
    @inlinable
    public init(tableName: String) {
        select = SQLSelect(tableName: tableName)
    }

    // MARK: Refining

    /// Keeps the rows where `predicate` is true (not false, not NULL). Chained filters are ANDed.
    ///
    /// ```swift
    /// Item.all().filter(Column("title").contains(search) || Column("note").contains(search))
    /// ```
    @inlinable
    public consuming func filter(_ predicate: some SQLExpressible) -> Self {
        let expression = predicate.sqlExpression
        if let existing = select.predicate {
            select.predicate = SQLExpression.connective(existing, expression, .and)
        } else {
            select.predicate = expression
        }
        return self
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
    public consuming func sort(_ orderings: [any SQLOrderingTerm]) -> Self {
        select.orderings = orderings.map(\.sqlOrdering)
        return self
    }

    /// At most `limit` rows, after skipping `offset` rows when given. Both are bound values.
    @inlinable
    public consuming func limit(_ limit: Int, offset: Int? = nil) -> Self {
        select.limit = limit
        select.offset = offset
        return self
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
    public consuming func select(_ columns: [any SQLExpressible]) -> Self {
        select.selection = columns.map(\.sqlExpression)
        return self
    }

    /// The same query, decoding rows as `type`.
    ///
    /// ```swift
    /// let titles = try Item.all().select(Column("title")).asRequest(of: String.self).fetchAll(db)
    /// ```
    public func asRequest<T>(of type: T.Type) -> QueryInterfaceRequest<T> {
        var request = QueryInterfaceRequest<T>(tableName: tableName)
        request.select = select
        return request
    }

    // MARK: SQL

    /// The SQL that `fetchAll(_:)` runs, with `?` for each argument: for logs and `--explain`.
    public var sql: String { render(.all).sql }

    /// The values bound to ``sql``'s placeholders, in order.
    public var arguments: [DatabaseValue] { render(.all).arguments }

    /// Every name the request uses: the table, then each column it mentions.
    package var identifiers: (table: String, columns: [String]) {
        (tableName, select.columnNames)
    }

    /// The request's SQL and arguments, for logs and tests; fetches render into the
    /// connection's buffers instead.
    package func render(_ rendering: SQLSelect.Rendering, dialect: SQLDialect = .sqlite) -> SQLRenderer {
        let renderer = SQLRenderer(dialect: dialect)
        select.render(rendering, into: renderer)
        return renderer
    }

    /// The request in another dialect, for the sources that run it elsewhere than on SQLite:
    /// its rows (`one`: at most the first), or their count. Throws for a value with no stored
    /// form.
    package func rendered(
        _ dialect: SQLDialect, one: Bool = false, count: Bool = false
    ) throws(ValueConversionError) -> (sql: String, arguments: [DatabaseValue], unsupported: String?) {
        let renderer = render(count ? .count : one ? .one : .all, dialect: dialect)
        try renderer.checkValues()
        return (renderer.sql, renderer.arguments, renderer.unsupported)
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
