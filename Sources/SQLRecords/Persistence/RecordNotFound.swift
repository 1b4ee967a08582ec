import QueryBuilder
import SQLCore

/// An update found no row with the record's primary key: the row was deleted, or the record was
/// never inserted. Nothing was changed.
///
///     record not found: no row of "items" has "id" = 42
public struct RecordNotFound: Error, Hashable, Sendable {
    /// The table searched.
    public var table: String
    /// The primary key's columns, in order.
    public var columns: [String]
    /// The record's key values, one per column.
    public var values: [DatabaseValue]

    /// Creates an error for the row of `table` whose key `columns` have `values`.
    public init(table: String, columns: [String], values: [DatabaseValue]) {
        self.table = table
        self.columns = columns
        self.values = values
    }

    /// The key as column → value.
    public var key: [String: DatabaseValue] {
        Dictionary(zip(columns, values), uniquingKeysWith: { first, _ in first })
    }
}

extension RecordNotFound: CustomStringConvertible {
    public var description: String {
        let condition = zip(columns, values).map { "\(String.quotedIdentifier($0)) = \($1)" }.joined(separator: " AND ")
        var text = "record not found: no row of \(String.quotedIdentifier(table)) has \(condition)"
        if values.contains(.null) { text += " (a record whose key is NULL was never inserted)" }
        return text
    }
}
