import CSQLite

/// What a connection refuses to run for now, before SQLite runs it: transaction control inside a
/// migration (the migrator runs each migration in a transaction of its own), and writes inside a
/// read of a connection that can also write.
@usableFromInline
final class WriteGuard {
    /// The migration running on the connection.
    var migration: (identifier: String, file: String?)? {
        didSet {
            updateIsEngaged()
            refusal = nil
        }
    }

    /// True while a read runs on a connection that can also write (a `DatabaseQueue`): every
    /// statement that may change the database fails.
    ///
    /// A Swift check rather than `PRAGMA query_only`: setting a flag pragma expires every
    /// prepared statement of the connection, so each read made SQLite prepare all its statements
    /// again.
    var readsOnly = false {
        didSet { updateIsEngaged() }
    }

    /// The first statement of the running migration that was refused; a migration that catches
    /// the error still fails.
    private(set) var refusal: MigrationError?

    /// True while a migration or a read runs: only then do statements that write or control
    /// transactions call ``check(_:)``.
    @usableFromInline @exclusivity(unchecked) var isEngaged = false

    private func updateIsEngaged() {
        isEngaged = migration != nil || readsOnly
    }

    /// Throws when `statement` may not run now.
    @usableFromInline
    func check(_ statement: Statement) throws {
        if let migration, let control = statement.control, control.isTransactionStatement {
            let error = MigrationError(
                identifier: migration.identifier, file: migration.file,
                reason: .transactionControl(sql: statement.sql))
            if refusal == nil { refusal = error }
            throw error
        }
        if readsOnly && statement.writes {
            throw SQLiteError(
                code: SQLITE_READONLY, message: "attempt to write a readonly database: a read cannot write",
                sql: statement.sql)
        }
    }
}
