/// What can go wrong while a ``SharedReader`` loads, besides the errors SQLite itself reports
/// (which arrive as `SQLiteError`).
///
/// ```swift
/// if let error = $items.loadError as? SharingSQLiteError, error == .noDatabase { … }
/// ```
public enum SharingSQLiteError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The key names no database and no default database was set.
    case noDatabase
    /// ``DefaultDatabase/set(_:)`` was called a second time.
    case defaultDatabaseAlreadySet
    /// A `fetchOne` key of a non-optional type found no row.
    case noRow(sql: String)
    /// `load()` was called on a reader that was never given a key.
    case noKey

    public var description: String {
        switch self {
        case .noDatabase:
            return
                "no database to read from: pass `database:` to the key, or call DefaultDatabase.set(_:) once at startup"
        case .defaultDatabaseAlreadySet:
            return "the default database is already set; it can be set only once per process"
        case .noRow(let sql):
            return
                "the query returned no row, and the value is not optional (use an optional type to allow none)\n  SQL: \(sql)"
        case .noKey:
            return "this reader has no key to reload: call load(_:) with a key first"
        }
    }
}
