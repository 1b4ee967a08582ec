import QueryBuilder
import SQLCore

/// A record or request that cannot be written as it is: what is wrong, with which type or table.
///
/// These are mistakes in a record's declaration or in a request, found before the database runs
/// anything, so the database is unchanged.
public enum PersistenceError: Error, Hashable, Sendable {
    /// The record's columns do not include its whole primary key, so its row cannot be found
    /// for an update, upsert or delete.
    case primaryKeyNotEncoded(type: String, table: String, key: [String], columns: [String])
    /// `encode(to:)` wrote a number of values other than the number of `databaseColumns`.
    case columnCountMismatch(type: String, columns: [String], written: Int)
    /// `databaseColumns` is empty and the values have no coding keys to name their columns.
    case noDatabaseColumns(type: String)
    /// The record has no columns at all.
    case noColumns(type: String)
    /// Two of the record's columns have the same name.
    case duplicateColumn(type: String, column: String)
    /// The coding keys of an `Encodable` record with declared `databaseColumns` do not name
    /// each declared column exactly once.
    case codingKeysMismatch(type: String, declared: [String], encoded: [String])
    /// The record's `Encodable` conformance writes something a row cannot hold.
    case unsupportedEncoding(type: String, reason: String)
    /// `deleteAll` or `updateAll` of a request with a limit, on a table without rowid: the rows
    /// to change are chosen by rowid.
    case limitNeedsRowID(table: String, sql: String)
    /// A write with RETURNING stored no row: a trigger's `RAISE(IGNORE)` skipped it.
    case nothingWritten(table: String, sql: String)
}

extension PersistenceError: CustomStringConvertible {
    public var description: String {
        func list(_ names: [String]) -> String { names.map(String.quotedIdentifier).joined(separator: ", ") }
        switch self {
        case .primaryKeyNotEncoded(let type, let table, let key, let columns):
            return "\(type) does not encode the primary key \(list(key)) of table \(String.quotedIdentifier(table)), "
                + "so its row cannot be found; it encodes \(list(columns)). Declare `primaryKey` if the key has another name"
        case .columnCountMismatch(let type, let columns, let written):
            return
                "\(type).encode(to:) wrote \(written) value(s) for its \(columns.count) databaseColumns (\(list(columns))); "
                + "write exactly one value per column, in order"
        case .noDatabaseColumns(let type):
            return "\(type).databaseColumns is empty: list the columns that encode(to:) writes, in order"
        case .noColumns(let type):
            return "\(type) encodes no column"
        case .duplicateColumn(let type, let column):
            return "\(type) encodes the column \(String.quotedIdentifier(column)) twice"
        case .codingKeysMismatch(let type, let declared, let encoded):
            return
                "the coding keys of \(type) (\(list(encoded))) do not name each of its databaseColumns (\(list(declared))) once"
        case .unsupportedEncoding(let type, let reason):
            return "\(type) cannot be written as a row: \(reason)"
        case .limitNeedsRowID(let table, let sql):
            return "cannot limit the rows changed in \(String.quotedIdentifier(table)), a table without rowid: "
                + "the rows are chosen by rowid. Filter them instead of limiting\n  SQL: \(sql)"
        case .nothingWritten(let table, let sql):
            return "nothing was written to \(String.quotedIdentifier(table)): a trigger ignored the row\n  SQL: \(sql)"
        }
    }
}
