import SQLCore

/// A column, by name: the starting point of filters and orderings.
///
/// ```swift
/// Item.all().filter(Column("priority") >= 2).sort(Column("created_at").desc)
/// ```
///
/// The name is always quoted in SQL, with embedded quotes doubled, so any name that exists in the
/// schema works (`Column("a\"b")` renders `"a""b"`). Names that come from users should be checked
/// first with SQLite's `Database.checkColumn(_:in:)` or `QueryInterfaceRequest.checkSchema(_:)`.
public struct Column: Hashable, Sendable, SQLExpressible {
    /// The column name, unquoted.
    public let name: String

    /// A column named `name`.
    @inlinable
    public init(_ name: String) {
        self.name = name
    }

    @inlinable
    public var sqlExpression: SQLExpression {
        SQLExpression(.column(name))
    }

    /// Equal names have the same bytes: SQLite reads `"\u{E9}"` and `"e\u{301}"` as two columns.
    public static func == (lhs: Column, rhs: Column) -> Bool {
        lhs.name.hasSameBytes(as: rhs.name)
    }

    public func hash(into hasher: inout Hasher) {
        name.hashBytes(into: &hasher)
    }
}
