import CSQLite

extension Statement {
    /// The `sqlite3_stmt` this statement wraps, for code that reads columns with the C API
    /// (`sqlite3_column_text`, `sqlite3_column_int64`…) to avoid making a value per column.
    ///
    /// The handle is valid while the statement is, on the connection's thread only. Step and
    /// reset the statement through ``step()`` and ``reset()``, so that change tracking sees them.
    public var sqliteHandle: OpaquePointer { handle }
}
