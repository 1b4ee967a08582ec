import QueryBuilder
import SQLCore

/// The columns that find a record's row again: its table's primary key.
///
/// ```swift
/// struct Item: PersistableRecord {
///     static let primaryKey = PrimaryKey.rowID("id")          // the default: INTEGER PRIMARY KEY
///     …
/// }
/// struct Membership: PersistableRecord {
///     static let primaryKey = PrimaryKey.columns("group_id", "user_id")
///     …
/// }
/// ```
///
/// The declaration must match the table: `update` and `delete` find rows by these columns, and
/// `upsert` names them in `ON CONFLICT`, where SQLite checks that they are a primary key or a
/// unique index.
public struct PrimaryKey: Hashable, Sendable {
    /// The key's columns, in order.
    public let columns: [String]
    /// True for an `INTEGER PRIMARY KEY` column, an alias of SQLite's rowid: inserting a record
    /// with a NULL key lets SQLite choose the key, which it hands to
    /// ``PersistableRecord/didInsert(rowID:)``.
    public let isRowID: Bool

    /// An `INTEGER PRIMARY KEY` column, `"id"` unless named.
    public static func rowID(_ column: String = "id") -> PrimaryKey {
        PrimaryKey(columns: [column], isRowID: true)
    }

    /// A declared key of one or more columns (`PRIMARY KEY(a, b)`, or a `TEXT PRIMARY KEY`).
    public static func columns(_ first: String, _ rest: String...) -> PrimaryKey {
        PrimaryKey(columns: [first] + rest, isRowID: false)
    }
}
