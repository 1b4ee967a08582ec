import CSQLite

// Records written straight into a SQLite statement's bindings.

extension ParameterBinder {
    /// SQLite's binding functions. Text and blobs are copied (`SQLITE_TRANSIENT`): the encoder's
    /// buffers do not outlive the call.
    ///
    /// Built where a record is bound rather than kept in a global: reading a global is a call the
    /// optimizer cannot see into, across which the write's statement and layout stay retained.
    @inlinable static var sqlite: ParameterBinder {
        ParameterBinder(
            // SQLite's own functions where their signatures fit: a closure would add a thunk per value.
            int64: sqlite3_bind_int64,
            double: sqlite3_bind_double,
            null: sqlite3_bind_null,
            text: { handle, index, bytes, count in
                // SQLite binds a NULL pointer as NULL, and an empty buffer may have no address.
                guard let bytes else { return sqlite3_bind_text(handle, index, "", 0, nil) }
                return sqlite3_bind_text64(
                    handle, index, bytes.assumingMemoryBound(to: CChar.self), UInt64(count), SQLITE_TRANSIENT,
                    UInt8(SQLITE_UTF8))
            },
            blob: { handle, index, bytes, count in
                if count == 0 { return sqlite3_bind_zeroblob(handle, index, 0) }
                return sqlite3_bind_blob64(handle, index, bytes, UInt64(count), SQLITE_TRANSIENT)
            })
    }
}

extension ColumnEncoder {
    /// Binds each column value to `statement`, as `sql` numbers its parameters.
    @inlinable
    init(binding statement: Statement, sql: WriteSQL, layout: RecordLayout) {
        self.init(binding: statement.handle, binder: .sqlite, sql: sql, layout: layout)
    }

    /// Throws when the record wrote the wrong number of values or a value could not be bound.
    @inlinable
    func finish(_ plan: RecordPlan, sql: WriteSQL?) throws {
        try finish(plan)
        if bindFailure != SQLITE_OK { try bindFailed(sql) }
    }

    @usableFromInline
    func bindFailed(_ sql: WriteSQL?) throws {
        guard let handle else { return }
        throw SQLiteError(connection: sqlite3_db_handle(handle), code: bindFailure, sql: sql?.sql)
    }
}
