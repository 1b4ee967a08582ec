/// A type that a fetch decodes from a row: every `fetchAll`, `fetchOne` and cursor takes one.
///
/// Three kinds of type conform, each decoding its own way:
///
/// - A type that writes `init(row:)` by hand, the fastest:
///
///   ```swift
///   struct Item: FetchableRow {
///       var id: Int64, title: String, done: Bool
///       init(row: BorrowedRow) throws {
///           id = try row[0]
///           title = try row[1]
///           done = try row[2]
///       }
///   }
///   let items = try db.fetchAll(Item.self, "SELECT id, title, done FROM items")
///   ```
///
/// - A `Decodable` type that declares the conformance and nothing more: each coding key names a
///   column (`struct Item: FetchableRow, Decodable { … }`). A type that writes `init(row:)` too
///   decodes with its own.
/// - Every ``DatabaseValueConvertible`` type (`Int`, `String`, `Date`…), which decodes the first
///   column: `try db.fetchAll(String.self, "SELECT title FROM items")`.
///
/// The row is valid only during this call; use
/// ``BorrowedRow/copy()`` to keep it.
public protocol FetchableRow {
    /// Decodes one row. Throw (typically by letting a typed `row[…]` read throw) when it does not fit.
    init(row: BorrowedRow) throws

    /// The value a `fetchOne` returns for the first row, or nil for none. The default decodes
    /// the row with `init(row:)`; a single value is nil when its column is NULL, as it is when
    /// there is no row.
    init?(firstRow row: BorrowedRow) throws
}

extension FetchableRow {
    @inlinable
    public init?(firstRow row: BorrowedRow) throws {
        try self.init(row: row)
    }
}

extension FetchableRow where Self: Decodable {
    /// Decodes the row through `Decodable`: each coding key names a column.
    ///
    /// A fetch from SQLite resolves each key to its column once per statement, on the first row,
    /// and reads the columns straight from the statement.
    @inlinable
    public init(row: BorrowedRow) throws {
        try self.init(from: row.decoder(for: Self.self))
    }
}

extension BorrowedRow {
    /// A decoder that reads this row for `type`'s `init(from:)`: each coding key names a column.
    ///
    /// A `Decodable` type's default ``FetchableRow/init(row:)`` decodes with it. A class that is
    /// not `final` cannot take that default, and writes the same in one line:
    ///
    /// ```swift
    /// required convenience init(row: BorrowedRow) throws {
    ///     try self.init(from: row.decoder(for: Self.self))
    /// }
    /// ```
    @inlinable
    public func decoder(for type: any Decodable.Type) -> any Decoder {
        source.decoder(for: self, type: ObjectIdentifier(type))
    }
}
