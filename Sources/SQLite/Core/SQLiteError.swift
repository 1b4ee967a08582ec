import CSQLite

/// An error reported by SQLite, or by this package on SQLite's behalf (a wrong argument count,
/// more than one statement where one is expected).
///
/// ```swift
/// do {
///     try db.execute("INSERT INTO items(title) VALUES (NULL)")
/// } catch let error as SQLiteError where error.code == SQLITE_CONSTRAINT {
///     print(error)   // SQLite error 19/1299 (constraint failed): NOT NULL constraint failed: items.title …
/// }
/// ```
public struct SQLiteError: Error, Sendable, Hashable {
    /// SQLite's primary result code, such as `SQLITE_CONSTRAINT` (19).
    public var code: Int32
    /// SQLite's extended result code, such as `SQLITE_CONSTRAINT_UNIQUE` (2067).
    public var extendedCode: Int32
    /// SQLite's message, or this package's when the failure was detected before SQLite ran.
    public var message: String
    /// The SQL that failed, when there is one.
    public var sql: String?
    /// The database file, for errors raised while opening it.
    public var path: String?

    /// Creates an error. `extendedCode` defaults to `code`.
    public init(code: Int32, extendedCode: Int32? = nil, message: String, sql: String? = nil, path: String? = nil) {
        self.code = code
        self.extendedCode = extendedCode ?? code
        self.message = message
        self.sql = sql
        self.path = path
    }

    /// SQLite's English name for the primary result code ("constraint failed", "database is locked").
    public var codeDescription: String {
        String(cString: sqlite3_errstr(code))
    }

    static func misuse(_ message: String, sql: String? = nil) -> SQLiteError {
        SQLiteError(code: SQLITE_MISUSE, message: message, sql: sql)
    }
}

extension SQLiteError: CustomStringConvertible {
    /// Reads well in a terminal: the code and its name, SQLite's message, then the SQL or file.
    ///
    ///     SQLite error 1 (SQL logic error): no such table: itemz
    ///       SQL: SELECT * FROM itemz
    public var description: String {
        var text = "SQLite error \(code)"
        if extendedCode != code { text += "/\(extendedCode)" }
        text += " (\(codeDescription)): \(message)"
        // SQLITE_CONSTRAINT_NOTNULL: the one NULL nobody wrote is a NaN, which SQLite binds as NULL.
        if extendedCode == 1299 { text += " (a Double NaN is stored as NULL by SQLite)" }
        if let path { text += "\n  database: \(path)" }
        if let sql { text += "\n  SQL: \(sql)" }
        return text
    }
}
