/// What can go wrong while a SQLite key's `SharedReader` loads, besides the errors SQLite itself
/// reports (which arrive as `SQLiteError`) and those of any source (`LiveQueryError`).
///
/// ```swift
/// if let error = $items.loadError as? SharingSQLiteError, error == .noDatabase { … }
/// ```
public enum SharingSQLiteError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The key names no database and no default database was set.
    case noDatabase
    /// ``DefaultDatabase/set(_:)`` was called a second time.
    case defaultDatabaseAlreadySet
    /// The database file was deleted while open. The connection still reads the deleted file,
    /// which no other program sees, so its readers report this instead of going stale.
    case databaseFileDeleted(path: String)
    /// The path of the database file now names another file (`mv other.db app.db`). The
    /// connection still reads the file it opened; open the path again to read the new one.
    case databaseFileReplaced(path: String)

    public var description: String {
        switch self {
        case .noDatabase:
            return
                "no database to read from: pass `database:` to the key, or call DefaultDatabase.set(_:) once at startup"
        case .defaultDatabaseAlreadySet:
            return "the default database is already set; it can be set only once per process"
        case .databaseFileDeleted(let path):
            return "the database file \"\(path)\" was deleted while open; its readers no longer follow it"
        case .databaseFileReplaced(let path):
            return
                "the database file \"\(path)\" was replaced by another file while open; open it again to read the new one"
        }
    }
}
