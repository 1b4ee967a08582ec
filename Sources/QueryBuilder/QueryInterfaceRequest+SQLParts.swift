import SQLCore

// The SQL of the other renderings of a request, for tools that show what they run (sqlq's
// `--explain --count`).

extension QueryInterfaceRequest {
    /// The SQL that ``fetchCount(_:)`` runs, with `?` for each argument.
    ///
    /// ```swift
    /// Table("items").filter(Column("done") == false).countSQL   // SELECT count(*) FROM "items" WHERE "done" = ?
    /// ```
    public var countSQL: String { render(.count).sql }

    /// The values bound to ``countSQL``'s placeholders, in order.
    public var countArguments: [DatabaseValue] { render(.count).arguments }
}
