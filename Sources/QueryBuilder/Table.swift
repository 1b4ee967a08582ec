import SQLCore

/// A table known only by name at run time, whose rows come back as `Row`.
///
/// ```swift
/// let table = Table(arguments.table)
/// try table.checkSchema(db)                                   // names from users: check first
/// let rows = try table.all().filter(Column(arguments.column) == arguments.value).fetchAll(db)
/// ```
public struct Table: Hashable, Sendable {
    /// The table's name, unquoted.
    public let name: String

    /// The table named `name`.
    public init(_ name: String) {
        self.name = name
    }

    /// Equal names have the same bytes: SQLite reads `"\u{E9}"` and `"e\u{301}"` as two tables.
    public static func == (lhs: Table, rhs: Table) -> Bool {
        lhs.name.hasSameBytes(as: rhs.name)
    }

    public func hash(into hasher: inout Hasher) {
        name.hashBytes(into: &hasher)
    }

    /// Every row of the table.
    public func all() -> QueryInterfaceRequest<Row> {
        QueryInterfaceRequest(tableName: name)
    }

    /// The rows where `predicate` is true.
    public func filter(_ predicate: some SQLExpressible) -> QueryInterfaceRequest<Row> {
        all().filter(predicate)
    }

    /// Every row, sorted.
    public func sort(_ orderings: any SQLOrderingTerm...) -> QueryInterfaceRequest<Row> {
        all().sort(orderings)
    }

    /// Every row, with these columns only.
    public func select(_ columns: any SQLExpressible...) -> QueryInterfaceRequest<Row> {
        all().select(columns)
    }
}
