/// The current row of a statement, handed to ``FetchableRow/init(row:)``. In a module that
/// imports `SQLite`, a typed read of a built-in type (`let id: Int64 = try row[0]`) reads the
/// column straight from the statement, which is what makes hand-written decoding as fast as the
/// C API.
///
/// ```swift
/// init(row: BorrowedRow) throws {
///     id = try row[0]
///     title = try row["title"]
/// }
/// ```
///
/// It is valid only during the call it is handed to: once the fetch steps on, its statement
/// stands on another row, and reading it traps rather than return that row's values. Keep it with
/// ``copy()``, which makes an owned ``Row``.
///
/// `BorrowedRow` is deliberately not `Sendable`. It reads from a statement that belongs to one
/// connection and is used on that connection's thread only; from another thread it would race
/// with the fetch that steps the statement. Without the conformance, the compiler refuses to send
/// it to another task or isolation domain; send its ``copy()`` instead.
public struct BorrowedRow {
    // Plain fields: column reads go through `handle` and `generationPointer`, which are plain
    // pointers and cost no reference counting, and the struct holds one reference, as few as a
    // row can: copying it costs one retain. The reference comes with the witness table of its
    // `RowSource` conformance, one word more, through which the row asks for column names
    // without a dynamic cast.
    //
    // This module imports no database: a generic read asks `source` for the value, and the
    // `SQLite` module adds typed reads that hand `handle` to the C API. A row of another source
    // than SQLite (PostgreSQL's rows arrive whole) has no `handle` and reads the values its
    // `source` holds. The branch on `handle` goes the same way on every row of a fetch.

    /// The statement, held so that it outlives the row (reads use `handle` instead); or, for a
    /// row of another source, its ``OwnedRowCursor``. It also answers the questions about
    /// column names, which are not on the path of a typed read by index.
    @usableFromInline package let source: any RowSource
    @usableFromInline package let handle: OpaquePointer?
    @usableFromInline package let generationPointer: UnsafeMutablePointer<UInt64>
    @usableFromInline package let columnCount: Int
    /// The statement's step generation for the row this stands on. Fetch loops move one row
    /// value along the statement by updating it, which spares a reference count per row.
    @usableFromInline package var generation: UInt64

    /// The current row of a statement: `handle` is its `sqlite3_stmt`, whose columns the row
    /// reads, and `source` the object that owns it.
    @inlinable
    package init(
        source: any RowSource, handle: OpaquePointer, generationPointer: UnsafeMutablePointer<UInt64>,
        columnCount: Int, generation: UInt64
    ) {
        self.source = source
        self.handle = handle
        self.generationPointer = generationPointer
        self.columnCount = columnCount
        self.generation = generation
    }

    /// The row a cursor over rows of another source stands on.
    init(cursor: OwnedRowCursor) {
        source = cursor
        handle = nil
        generationPointer = cursor.generation
        columnCount = cursor.row.count
        generation = cursor.generation.pointee
    }

    /// A row whose values another source already read; a fetch of many rows moves one
    /// ``OwnedRowCursor`` along them instead.
    package init(_ row: Row) {
        self.init(cursor: OwnedRowCursor(row))
    }

    /// The values of a row read whole by another source.
    @usableFromInline
    package var owned: Row? { handle == nil ? unsafeDowncast(source, to: OwnedRowCursor.self).row : nil }

    /// Moves the row to the statement's current row.
    @inlinable
    package mutating func advance() {
        generation = generationPointer.pointee
    }

    /// Traps when the statement has stepped past this row: reading it now would return another
    /// row's values.
    @inlinable
    package func checkCurrent() {
        precondition(
            generationPointer.pointee == generation,
            "A BorrowedRow was used after the fetch moved on; keep rows with row.copy()")
    }

    /// How many columns the row has.
    @inlinable
    public var count: Int { columnCount }

    /// The column names, in order.
    public var columnNames: [String] { source.columnNames }

    /// All values, in column order.
    public var values: [DatabaseValue] {
        (0..<columnCount).map { value(at: $0) }
    }

    /// An owned row with the same names and values, safe to keep after the fetch moves on and to
    /// send to other tasks.
    public func copy() -> Row {
        if let owned { return owned }
        checkCurrent()
        return Row(columnNames: source.columnNames, values: values)
    }

    /// The value at `index`. Traps when `index` is out of range, as arrays do.
    @inlinable
    public func value(at index: Int) -> DatabaseValue {
        checkCurrent()
        guard handle != nil else { return owned!.values[index] }
        precondition(index >= 0 && index < columnCount, "column index \(index) out of range")
        return source.value(at: index)
    }

    /// The index of the named column, matched exactly first and then ignoring case as SQL does.
    public func index(ofColumn name: String) -> Int? {
        source.columnIndex(named: name)
    }

}

extension BorrowedRow: RowReading {
    @_spi(RowSQL) public var sql: String? { source.rowSQL }
}

extension BorrowedRow {
    /// The first column converted to `T`, or nil when it is NULL.
    @inlinable
    package func firstColumnUnlessNull<T: DatabaseValueConvertible>(_ type: T.Type) throws -> T? {
        guard columnCount > 0 else { throw indexOutOfRange(T.self, index: 0) }
        checkCurrent()
        if handle == nil ? owned!.values[0].isNull : source.isNull(at: 0) { return nil }
        return try self[0] as T
    }
}

/// What a ``BorrowedRow`` reads from: a statement of a SQLite connection, or the cursor of
/// another source. A typed read of a built-in type from SQLite does not go through it (see the
/// `SQLite` module's `StatementColumnConvertible`); every other read does.
@usableFromInline
package protocol RowSource: AnyObject {
    /// The value of column `index` of the current row; `index` is in range.
    func value(at index: Int) -> DatabaseValue
    /// True when column `index` of the current row is NULL; `index` is in range.
    func isNull(at index: Int) -> Bool
    /// The column names, in order.
    var columnNames: [String] { get }
    /// The index of the named column, matched exactly first and then ignoring case as SQL does.
    func columnIndex(named name: String) -> Int?
    /// The SQL the rows come from, for error messages, when known.
    var rowSQL: String? { get }
    /// A decoder standing on `row`, one of this source's, for the `init(from:)` of the type
    /// `type` identifies.
    func decoder(for row: BorrowedRow, type: ObjectIdentifier) -> any Decoder
}

extension BorrowedRow: CustomStringConvertible {
    /// `[id:1 title:'milk' done:0]`
    public var description: String { textDescription }
}

/// Hands the rows of another source (PostgreSQL's arrive whole) to ``FetchableRow/init(row:)``
/// one at a time, as a statement hands its own: one cursor per fetch, so that a row costs no
/// allocation, and a ``BorrowedRow`` kept past its call traps as it would on SQLite.
package final class OwnedRowCursor: RowSource {
    @usableFromInline private(set) var row: Row
    /// Moves with each row, for ``BorrowedRow``'s check that it is still current.
    @usableFromInline let generation = UnsafeMutablePointer<UInt64>.allocate(capacity: 1)

    package init(_ row: Row = Row(columnNames: [], values: [])) {
        self.row = row
        generation.initialize(to: 0)
    }

    deinit { generation.deallocate() }

    @usableFromInline package var columnNames: [String] { row.columnNames }

    @usableFromInline package func columnIndex(named name: String) -> Int? { row.index(ofColumn: name) }

    @usableFromInline package var rowSQL: String? { nil }

    @usableFromInline package func value(at index: Int) -> DatabaseValue { row.values[index] }

    @usableFromInline package func isNull(at index: Int) -> Bool { row.values[index].isNull }

    /// Finds each coding key's column by name: the rows of other sources are few, and a plan
    /// per statement as SQLite's would have no statement to live in.
    @usableFromInline package func decoder(for row: BorrowedRow, type: ObjectIdentifier) -> any Decoder {
        NamedColumnDecoder(row: row)
    }

    /// The cursor moved to `row`, for the duration of one `init(row:)` call.
    package func borrow(_ row: Row) -> BorrowedRow {
        self.row = row
        generation.pointee &+= 1
        return BorrowedRow(cursor: self)
    }
}
