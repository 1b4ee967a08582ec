import SQLite

extension Migrator {
    /// Applies every pending migration to a PostgreSQL database, in order: the same SQL
    /// migrations, checksums and `schema_migrations` table as on SQLite.
    ///
    /// Each migration runs in a transaction of its own (PostgreSQL's DDL is transactional), so a
    /// failing one leaves no table behind and is not recorded; the ones before it stay applied.
    /// The transaction locks `schema_migrations`, so that two processes migrating at once apply
    /// each migration once. Throws `MigrationError` when a migration fails, when an applied
    /// one's SQL has changed (`.checksumMismatch`), when
    /// one runs `BEGIN`, `COMMIT` or `ROLLBACK`, and, before applying anything, when a pending
    /// migration is Swift code over an SQLite `Database`
    /// (`.requiresSQLite`).
    public func migrate(_ db: PostgreSQLDatabase) async throws {
        try await db.execute(Self.createTableSQL)
        let applied = try await appliedMigrations(db)
        try verifyChecksums(applied)
        let appliedIDs = Set(applied.map(\.identifier))
        let pending = migrations.filter { !appliedIDs.contains($0.identifier) }
        if let code = pending.first(where: { $0.sql == nil }) {
            throw MigrationError(identifier: code.identifier, file: code.file, reason: .requiresSQLite)
        }
        for migration in pending {
            try await apply(migration, sql: migration.sql ?? "", to: db)
        }
    }

    /// The migrations recorded as applied in a PostgreSQL database, oldest first.
    public func appliedMigrations(_ db: PostgreSQLDatabase) async throws -> [AppliedMigration] {
        let exists = try await db.fetchOne("SELECT to_regclass($1) IS NOT NULL AS found", [.text(Self.quotedTable)])
        guard let exists, try exists["found"] as Bool else { return [] }
        return try await db.fetchAll(Self.selectAppliedSQL).map(Self.appliedMigration)
    }

    private func apply(_ migration: Migration, sql: String, to db: PostgreSQLDatabase) async throws {
        let statements = SQLScript.statements(sql)
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
                let record = try Self.recording(migration, dialect: .postgreSQL)
                try await tx.execute(record.sql, record.arguments)
            }
        } catch let error as MigrationError {
            throw error
        } catch {
            throw MigrationError(identifier: migration.identifier, file: migration.file, reason: .failed(error))
        }
    }

    /// Oldest first. PostgreSQL has no rowid to keep the insertion order: the times, then the
    /// identifiers (numbered files sort in order), stand for it.
    private static var selectAppliedSQL: String {
        "SELECT identifier, checksum, applied_at FROM \(quotedTable) ORDER BY applied_at, identifier"
    }

    /// `BEGIN`, `START TRANSACTION`, `COMMIT`, `END`, `ROLLBACK` (not `ROLLBACK TO`), `ABORT`:
    /// statements that would end the migration's transaction, committing part of it.
    private static func endsTransaction(_ statement: String) -> Bool {
        let words = statement.split(whereSeparator: { $0.isWhitespace }).prefix(2).map { $0.uppercased() }
        switch words.first {
        case "BEGIN", "COMMIT", "END", "ABORT": return true
        case "START": return words.dropFirst().first == "TRANSACTION"
        case "ROLLBACK": return words.dropFirst().first.map { !$0.hasPrefix("TO") } ?? true
        default: return false
        }
    }
}
