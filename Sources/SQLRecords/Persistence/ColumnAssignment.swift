import QueryBuilder
import SQLCore

/// `column = value` in an `UPDATE`: what `QueryInterfaceRequest.updateAll(_:_:)` sets.
///
/// ```swift
/// try Item.all().filter(Column("list_id") == listID).updateAll(db, Column("done").set(to: true))
/// try Item.all().updateAll(db, Column("due").set(to: nil), Column("title").set(to: Column("draft_title")))
/// ```
///
/// Values are bound; the column name is quoted.
public struct ColumnAssignment: Hashable, Sendable {
    /// The column set.
    public let column: Column
    /// What it is set to.
    public let value: SQLExpression

    /// `column = value`.
    public init(column: Column, value: SQLExpression) {
        self.column = column
        self.value = value
    }
}

extension Column {
    /// Sets the column to a value: `"done" = ?`.
    public func set(to value: some DatabaseValueConvertible) -> ColumnAssignment {
        ColumnAssignment(column: self, value: .value(value))
    }

    /// Sets the column to a value, or to NULL with `set(to: nil)`.
    public func set(to value: DatabaseValue) -> ColumnAssignment {
        ColumnAssignment(column: self, value: .value(value))
    }

    /// Sets the column to an expression, such as another column of the same row.
    public func set(to expression: some SQLExpressible) -> ColumnAssignment {
        ColumnAssignment(column: self, value: expression.sqlExpression)
    }
}
