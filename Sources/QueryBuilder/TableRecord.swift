import SQLCore

/// A record type stored in a table: the entry point of typed requests.
///
/// ```swift
/// struct Item: TableRecord, FetchableRow {
///     static let tableName = "items"
///     var id: Int64, title: String
///     init(row: BorrowedRow) throws { id = try row["id"]; title = try row["title"] }
/// }
/// let open = try Item.all().filter(Column("done") == false).fetchAll(db)
/// ```
public protocol TableRecord {
    /// The table's name, unquoted.
    static var tableName: String { get }
}

extension TableRecord {
    /// Every row of the table, decoded as `Self`.
    @inlinable
    public static func all() -> QueryInterfaceRequest<Self> {
        QueryInterfaceRequest(tableName: tableName)
    }

    /// The rows where `predicate` is true: `Item.filter(…)` is `Item.all().filter(…)`.
    @inlinable
    public static func filter(_ predicate: some SQLExpressible) -> QueryInterfaceRequest<Self> {
        all().filter(predicate)
    }

    /// Every row, sorted: `Item.sort(…)` is `Item.all().sort(…)`.
    @inlinable
    public static func sort(_ orderings: any SQLOrderingTerm...) -> QueryInterfaceRequest<Self> {
        all().sort(orderings)
    }
}
