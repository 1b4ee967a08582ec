import QueryBuilder
import SQLCore

/// A record that is written to a table: inserted, updated, upserted, saved and deleted.
///
/// `Encodable` records need nothing more than a table name; their coding keys name the columns:
///
/// ```swift
/// struct Item: PersistableRecord, FetchableRow, Codable {
///     static let tableName = "items"
///     var id: Int64?
///     var title: String
///     var done = false
///     mutating func didInsert(rowID: Int64) { id = rowID }
///     init(row: BorrowedRow) throws { … }
/// }
///
/// var item = Item(title: "milk")
/// try item.insert(db)                  // item.id is now set
/// item.done = true
/// try item.update(db)
/// try item.delete(db)
/// ```
///
/// The fastest path, the mirror of `FetchableRow/init(row:)`, lists the columns once and writes
/// their values in that order, straight into the statement's bindings:
///
/// ```swift
/// struct Item: PersistableRecord {
///     static let tableName = "items"
///     static let databaseColumns = ["id", "title", "done"]
///     var id: Int64?
///     var title: String
///     var done: Bool
///     func encode(to columns: inout ColumnEncoder) {
///         columns.encode(id)
///         columns.encode(title)
///         columns.encode(done)
///     }
///     mutating func didInsert(rowID: Int64) { id = rowID }
/// }
/// ```
///
/// Each kind of write renders its SQL once per record type and set of columns, and runs through
/// the connection's statement cache, so writing many records never renders or prepares again.
public protocol PersistableRecord: TableRecord {
    /// The table's primary key. The default is ``PrimaryKey/rowID(_:)`` on `"id"`.
    static var primaryKey: PrimaryKey { get }

    /// The names of the columns ``encode(to:)`` writes, in the order it writes them.
    ///
    /// `Encodable` records leave it out: an empty list means that the coding keys name the
    /// columns, learned from the first record written and checked on every record after it.
    static var databaseColumns: [String] { get }

    /// Writes one value per column of ``databaseColumns``, in order. `Encodable` records leave
    /// it out.
    func encode(to columns: inout ColumnEncoder) throws

    /// Called after a successful insert into a table whose key is a rowid alias, with the key
    /// SQLite stored. Set the record's id here; the default does nothing.
    mutating func didInsert(rowID: Int64)
}

extension PersistableRecord {
    public static var primaryKey: PrimaryKey { .rowID() }

    public mutating func didInsert(rowID: Int64) {}
}

extension PersistableRecord where Self: Encodable {
    /// Empty: the coding keys name the columns.
    public static var databaseColumns: [String] { [] }

    /// Encodes the record through `Encodable`: each coding key names a column. Optionals that
    /// are nil are written as NULL (not left out), so every record of a type has the same
    /// columns. Dates, UUIDs, `Data` and every `DatabaseValueConvertible` type are stored as
    /// they are when bound; other nested values as JSON text.
    public func encode(to columns: inout ColumnEncoder) throws {
        try columns.encodeEncodable(self, type: Self.self)
    }
}
