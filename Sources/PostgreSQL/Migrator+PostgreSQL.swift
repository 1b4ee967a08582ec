import Locking
import SQLRecords

/// Applies schema migrations to a PostgreSQL database: the same SQL migrations, `.sql` folders,
/// checksums and `schema_migrations` table as SQLite's `Migrator`, and migrations in Swift that
/// get the migration's ``PostgreSQLTransaction``:
///
/// ```swift
/// var migrator = PostgreSQLMigrator()
/// try migrator.registerMigrations(inDirectory: "Migrations")
/// try migrator.registerMigration("seed") { tx in
///     try await tx.execute("INSERT INTO lists(name) VALUES ($1)", [.text("Inbox")])
/// }
/// try await migrator.migrate(db)
/// ```
public typealias PostgreSQLMigrator = DatabaseMigrator<PostgreSQLDatabase>

extension PostgreSQLDatabase: MigratableDatabase {
    /// A PostgreSQL migration's code gets the migration's transaction.
    public typealias MigrationBody = @Sendable (PostgreSQLTransaction) async throws -> Void
}

extension DatabaseMigrator where Target == PostgreSQLDatabase {
    /// Applies every pending migration, in order.
    ///
    /// Each migration runs in a transaction of its own (PostgreSQL's DDL is transactional), so a
    /// failing one leaves no table behind and is not recorded; the ones before it stay applied.
    /// The transaction locks `schema_migrations`, so that two processes migrating at once apply
    /// each migration once. Throws `MigrationError` when a migration fails, when an applied
    /// one's SQL has changed (`.checksumMismatch`), and when one runs `BEGIN`, `COMMIT` or
    /// `ROLLBACK` (`.transactionControl`), in its SQL or through the transaction its Swift code
    /// gets, which refuses them before they run.
    public func migrate(_ db: PostgreSQLDatabase) async throws {
        try await db.execute(Self.createTableSQL)
        for migration in try pending(applied: await appliedMigrations(db)) {
            try await apply(migration, to: db)
        }
    }

    /// Every known migration with its state: applied, pending, changed since applied, or
    /// applied but no longer registered.
    public func status(_ db: PostgreSQLDatabase) async throws -> [MigrationStatus] {
        status(applied: try await appliedMigrations(db))
    }

    /// The migrations recorded as applied in a PostgreSQL database, oldest first.
    public func appliedMigrations(_ db: PostgreSQLDatabase) async throws -> [AppliedMigration] {
        let exists = try await db.fetchOne("SELECT to_regclass($1) IS NOT NULL AS found", [.text(Self.quotedTable)])
        guard let exists, try exists["found"] as Bool else { return [] }
        return try await db.fetchAll(Self.selectAppliedSQL).map(Self.appliedMigration)
    }

    private func apply(_ migration: Migration, to db: PostgreSQLDatabase) async throws {
        let statements = SQLScript.statements(migration.sql ?? "")
        if let control = statements.first(where: Self.endsTransaction) {
            throw MigrationError(
                identifier: migration.identifier, file: migration.file, reason: .transactionControl(sql: control))
        }
        do {
            try await db.transaction { tx in
                try await tx.execute("LOCK TABLE \(Self.quotedTable) IN EXCLUSIVE MODE")
                // Another process may have applied it since this one looked.
                let recorded = try await tx.fetchAll(Self.selectAppliedSQL).map(Self.appliedMigration)
                if recorded.contains(where: { $0.identifier == migration.identifier }) {
                    try verifyChecksums(recorded)
                    return
                }
                for statement in statements { try await tx.execute(statement) }
                if let body = migration.body { try await run(body, of: migration, in: tx) }
                let record = try Self.recording(migration, dialect: .postgreSQL)
                try await tx.execute(record.sql, record.arguments)
            }
        } catch let error as MigrationError {
            throw error
        } catch {
            throw MigrationError(identifier: migration.identifier, file: migration.file, reason: .failed(error))
        }
    }

    /// Runs a migration's Swift code, refusing the statements that would end the transaction it
    /// runs in: they would commit part of it, or record it as applied when it was rolled back.
    private func run(
        _ body: PostgreSQLDatabase.MigrationBody, of migration: Migration, in tx: PostgreSQLTransaction
    ) async throws {
        let migrationGuard = MigrationGuard(identifier: migration.identifier, file: migration.file)
        var guarded = tx.session
        guarded.migration = migrationGuard
        do {
            try await body(PostgreSQLTransaction(session: guarded))
        } catch {
            // A refused statement is the cause, even when the migration caught its error.
            throw migrationGuard.refusal.withLock { $0 } ?? error
        }
        if let refused = migrationGuard.refusal.withLock({ $0 }) { throw refused }
    }

    /// Oldest first. PostgreSQL has no rowid to keep the insertion order: the times, then the
    /// identifiers (numbered files sort in order), stand for it.
    private static var selectAppliedSQL: String {
        "SELECT identifier, checksum, applied_at FROM \(quotedTable) ORDER BY applied_at, identifier"
    }

    /// `BEGIN`, `START TRANSACTION`, `COMMIT`, `END`, `ROLLBACK` (not `ROLLBACK TO`), `ABORT`:
    /// statements that would end the migration's transaction, committing part of it.
    static func endsTransaction(_ statement: String) -> Bool {
        let words = statement.split(whereSeparator: { $0.isWhitespace }).prefix(2).map { $0.uppercased() }
        switch words.first {
        case "BEGIN", "COMMIT", "END", "ABORT": return true
        case "START": return words.dropFirst().first == "TRANSACTION"
        case "ROLLBACK": return words.dropFirst().first.map { !$0.hasPrefix("TO") } ?? true
        default: return false
        }
    }
}
