/// Applies schema migrations to a SQLite database: SQL text, folders of numbered `.sql` files,
/// and migrations in Swift that get the ``Database``.
///
/// ```swift
/// var migrator = Migrator()
/// try migrator.registerMigration("v1") { db in
///     try db.execute("CREATE TABLE lists(id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
/// }
/// try migrator.registerMigrations(inDirectory: "Migrations")   // 0001_schema.sql, 0002_seed.sql…
/// try migrator.migrate(queue)
/// ```
///
/// Each migration runs in its own IMMEDIATE transaction, with foreign keys checked before it
/// commits: a failing migration leaves no trace, and the ones before it stay applied.
public typealias Migrator = DatabaseMigrator<Database>

extension Database: MigratableDatabase {
    /// A SQLite migration's code gets the connection, inside the migration's transaction.
    public typealias MigrationBody = @Sendable (Database) throws -> Void
}

extension DatabaseMigrator where Target == Database {
    /// Applies every pending migration, in order.
    ///
    /// Throws `MigrationError` naming the migration (and file) that failed, or whose applied
    /// file has changed; nothing of a failed migration remains.
    public func migrate(_ writer: some DatabaseWriter) throws {
        try writer.writeWithoutTransaction { db in
            try db.execute(Self.createTableSQL)
            for migration in try pending(applied: Self.applied(db)) {
                try apply(migration, in: db)
            }
        }
    }

    /// The migrations recorded as applied, in the order they were applied.
    public func appliedMigrations(_ reader: some DatabaseReader) throws -> [AppliedMigration] {
        try reader.read { db in
            try Self.tableExists(db) ? Self.applied(db) : []
        }
    }

    /// Every known migration with its state: applied, pending, changed since applied, or
    /// applied but no longer registered.
    public func status(_ reader: some DatabaseReader) throws -> [MigrationStatus] {
        status(applied: try appliedMigrations(reader))
    }

    /// True when some registered migration is not applied yet.
    public func hasPendingMigrations(_ reader: some DatabaseReader) throws -> Bool {
        try status(reader).contains { $0.state == .pending }
    }

    // MARK: Applying

    private func apply(_ migration: Migration, in db: Database) throws {
        // Foreign keys are switched off while a migration runs, so that it can rebuild tables
        // (SQLite cannot change this setting inside a transaction); the check below then
        // verifies the result before anything commits.
        let foreignKeys = try db.fetchOne(Bool.self, "PRAGMA foreign_keys") ?? false
        if foreignKeys { try db.execute("PRAGMA foreign_keys = OFF") }
        defer { if foreignKeys { try? db.execute("PRAGMA foreign_keys = ON") } }
        do {
            try db.transaction(.immediate) { db in
                try run(migration, in: db)
                let violations = try db.fetchAll("PRAGMA foreign_key_check")
                if !violations.isEmpty {
                    let described = violations.prefix(5).map { row in
                        "\(row.value(named: "table") ?? .null) rowid \(row.value(named: "rowid") ?? .null) → \(row.value(named: "parent") ?? .null)"
                    }
                    throw MigrationError(
                        identifier: migration.identifier, file: migration.file,
                        reason: .foreignKeyViolations(count: violations.count, examples: described))
                }
                let record = try Self.recording(migration, dialect: .sqlite)
                try db.execute(record.sql, record.arguments)
            }
        } catch let error as MigrationError {
            throw error
        } catch {
            throw MigrationError(identifier: migration.identifier, file: migration.file, reason: .failed(error))
        }
    }

    /// Runs the body of `migration`, refusing the statements that would end the transaction it
    /// runs in: they would commit part of it, or record it as applied when it was rolled back.
    private func run(_ migration: Migration, in db: Database) throws {
        db.writeGuard.migration = (migration.identifier, migration.file)
        defer { db.writeGuard.migration = nil }
        do {
            if let body = migration.body { try body(db) } else { try db.executeScript(migration.sql ?? "") }
        } catch {
            // A refused statement is the cause, even when the migration caught its error.
            throw db.writeGuard.refusal ?? error
        }
        if let refusal = db.writeGuard.refusal { throw refusal }
        // SQLite rolls back by itself after some errors (a full disk, say): a migration that
        // caught one and went on has lost its work.
        guard db.isInTransaction else {
            throw MigrationError(identifier: migration.identifier, file: migration.file, reason: .transactionLost)
        }
    }

    private static func tableExists(_ db: Database) throws -> Bool {
        try db.fetchOne(Int.self, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", [.text(tableName)])
            != nil
    }

    private static func applied(_ db: Database) throws -> [AppliedMigration] {
        try db.fetchAll("SELECT identifier, checksum, applied_at FROM \(quotedTable) ORDER BY rowid").map(
            appliedMigration)
    }
}
