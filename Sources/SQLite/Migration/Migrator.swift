#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Applies schema migrations in order, once each, and records what it applied.
///
/// Register migrations in code, or load a folder of numbered `.sql` files:
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
/// commits: a failing migration leaves no trace, and the ones before it stay applied. So a
/// migration may not run `BEGIN`, `COMMIT`, `END` or `ROLLBACK` (savepoints are fine). Applied
/// migrations are recorded in the `schema_migrations` table with their identifier, checksum and
/// time. An applied `.sql` migration whose file has changed since is an error, never skipped.
public struct Migrator: Sendable {
    /// One registered migration.
    public struct Migration: Sendable {
        /// Its unique identifier; for files, the file name without `.sql`.
        public let identifier: String
        /// The file it came from, if any.
        public let file: String?
        /// A checksum of the SQL, for file migrations; code cannot be checksummed.
        public let checksum: String?
        /// The SQL text, for migrations registered as SQL: what other databases run, having no
        /// SQLite ``Database`` to hand to a Swift body.
        package let sql: String?
        let body: @Sendable (Database) throws -> Void
    }

    /// The table that records applied migrations.
    public static let tableName = "schema_migrations"

    /// The migrations, in the order they apply.
    public private(set) var migrations: [Migration] = []

    /// A migrator with no migrations registered.
    public init() {}

    /// Registers a migration written in Swift.
    ///
    /// Throws ``MigrationError`` when the identifier is registered already.
    public mutating func registerMigration(
        _ identifier: String, _ body: @escaping @Sendable (Database) throws -> Void
    ) throws {
        try checkUnregistered(identifier, file: nil)
        migrations.append(Migration(identifier: identifier, file: nil, checksum: nil, sql: nil, body: body))
    }

    /// Registers a migration from SQL text (one or more statements).
    ///
    /// Throws ``MigrationError`` when the identifier is registered already.
    public mutating func registerMigration(_ identifier: String, sql: String, file: String? = nil) throws {
        try checkUnregistered(identifier, file: file)
        migrations.append(Self.sqlMigration(identifier, sql: sql, file: file))
    }

    private static func sqlMigration(_ identifier: String, sql: String, file: String?) -> Migration {
        Migration(identifier: identifier, file: file, checksum: checksum(sql), sql: sql) { db in
            try db.executeScript(sql)
        }
    }

    private func checkUnregistered(_ identifier: String, file: String?) throws {
        guard let existing = migrations.first(where: { $0.identifier == identifier }) else { return }
        throw MigrationError(identifier: identifier, file: file, reason: .registeredTwice(firstFile: existing.file))
    }

    /// Registers every `NNNN_name.sql` file of a folder, ordered by number.
    ///
    /// Throws ``MigrationError`` when the folder cannot be read, a `.sql` file is not named
    /// `NNNN_name.sql`, two files share a number, or a migration is registered already (the
    /// folder registered twice, say); nothing of the folder is registered then.
    public mutating func registerMigrations(inDirectory directory: String) throws {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory)
        } catch {
            throw MigrationError(
                identifier: nil, file: directory,
                reason: .unreadable("cannot list the folder: \(Self.reason(error))"))
        }
        var numbered: [(number: Int, name: String)] = []
        for name in names where name.hasSuffix(".sql") {
            let digits = name.prefix { $0.isASCII && $0.isNumber }
            guard !digits.isEmpty, let number = Int(digits), name.dropFirst(digits.count).first == "_" else {
                throw MigrationError(
                    identifier: nil, file: directory + "/" + name,
                    reason: .unreadable("migration files must be named NNNN_name.sql, like 0001_create_items.sql"))
            }
            if let clash = numbered.first(where: { $0.number == number }) {
                throw MigrationError(
                    identifier: nil, file: directory + "/" + name,
                    reason: .unreadable("number \(number) is used by \(clash.name) too"))
            }
            numbered.append((number, name))
        }
        var loaded: [Migration] = []
        for (_, name) in numbered.sorted(by: { $0.number < $1.number }) {
            let file = directory + "/" + name
            let identifier = String(name.dropLast(4))
            try checkUnregistered(identifier, file: file)
            guard let data = FileManager.default.contents(atPath: file) else {
                throw MigrationError(identifier: nil, file: file, reason: .unreadable("cannot read the file"))
            }
            loaded.append(Self.sqlMigration(identifier, sql: String(decoding: data, as: UTF8.self), file: file))
        }
        migrations += loaded
    }

    /// What the system said, such as "No such file or directory": the file error's underlying
    /// `errno`, rather than its generic description.
    private static func reason(_ error: any Error) -> String {
        if let posix = (error as? CocoaError)?.underlying as? POSIXError {
            return String(cString: strerror(posix.code.rawValue))
        }
        return String(describing: error)
    }

    /// Applies every pending migration, in order.
    ///
    /// Throws ``MigrationError`` naming the migration (and file) that failed, or whose applied
    /// file has changed; nothing of a failed migration remains.
    public func migrate(_ writer: some DatabaseWriter) throws {
        try writer.writeWithoutTransaction { db in
            try db.execute(Self.createTableSQL)
            let applied = try Self.applied(db)
            try verifyChecksums(applied)
            let appliedIDs = Set(applied.map(\.identifier))
            for migration in migrations where !appliedIDs.contains(migration.identifier) {
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
        let applied = try appliedMigrations(reader)
        let byID = Dictionary(applied.map { ($0.identifier, $0) }, uniquingKeysWith: { first, _ in first })
        var result = migrations.map { migration -> MigrationStatus in
            guard let record = byID[migration.identifier] else {
                return MigrationStatus(identifier: migration.identifier, file: migration.file, state: .pending)
            }
            if let checksum = migration.checksum, let recorded = record.checksum, checksum != recorded {
                return MigrationStatus(
                    identifier: migration.identifier, file: migration.file,
                    state: .changedSinceApplied(record.appliedAt))
            }
            return MigrationStatus(
                identifier: migration.identifier, file: migration.file, state: .applied(record.appliedAt))
        }
        let registered = Set(migrations.map(\.identifier))
        for record in applied where !registered.contains(record.identifier) {
            result.append(MigrationStatus(identifier: record.identifier, file: nil, state: .unknown(record.appliedAt)))
        }
        return result
    }

    /// True when some registered migration is not applied yet.
    public func hasPendingMigrations(_ reader: some DatabaseReader) throws -> Bool {
        try status(reader).contains { $0.state == .pending }
    }

    // MARK: Applying

    package func verifyChecksums(_ applied: [AppliedMigration]) throws {
        for record in applied {
            guard let migration = migrations.first(where: { $0.identifier == record.identifier }),
                let current = migration.checksum, let recorded = record.checksum, current != recorded
            else { continue }
            throw MigrationError(
                identifier: migration.identifier, file: migration.file,
                reason: .checksumMismatch(recorded: recorded, current: current))
        }
    }

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
            try migration.body(db)
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

    package static var quotedTable: String { "\"\(tableName)\"" }

    private static func tableExists(_ db: Database) throws -> Bool {
        try db.fetchOne(Int.self, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", [.text(tableName)])
            != nil
    }

    private static func applied(_ db: Database) throws -> [AppliedMigration] {
        try db.fetchAll("SELECT identifier, checksum, applied_at FROM \(quotedTable) ORDER BY rowid").map(
            appliedMigration)
    }

    // MARK: The table of applied migrations, on every database

    /// Creates the table of applied migrations unless it exists.
    package static var createTableSQL: String {
        """
        CREATE TABLE IF NOT EXISTS \(quotedTable) (
            identifier TEXT PRIMARY KEY NOT NULL,
            checksum TEXT,
            applied_at TEXT NOT NULL
        )
        """
    }

    /// The statement that records `migration` as applied now, with `dialect`'s placeholders.
    package static func recording(
        _ migration: Migration, dialect: SQLDialect
    ) throws -> (sql: String, arguments: [DatabaseValue]) {
        let placeholders =
            switch dialect {
            case .sqlite: "?, ?, ?"
            case .postgreSQL: "$1, $2, $3"
            }
        return (
            "INSERT INTO \(quotedTable)(identifier, checksum, applied_at) VALUES (\(placeholders))",
            [
                .text(migration.identifier), migration.checksum.map(DatabaseValue.text) ?? .null,
                try DatabaseValue(Date()),
            ]
        )
    }

    /// A row of `identifier, checksum, applied_at`, as the table holds them.
    package static func appliedMigration(_ row: Row) throws -> AppliedMigration {
        AppliedMigration(identifier: try row[0], checksum: try row[1], appliedAt: try row[2])
    }

    /// FNV-1a, 64 bits, in hex: enough to notice an edited file, with no dependency.
    static func checksum(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}

/// A migration recorded in the database as applied.
public struct AppliedMigration: Sendable, Hashable {
    /// The migration's identifier.
    public var identifier: String
    /// The checksum of its SQL when applied; `nil` for migrations written in Swift.
    public var checksum: String?
    /// When the migration was applied.
    public var appliedAt: Date

    package init(identifier: String, checksum: String?, appliedAt: Date) {
        self.identifier = identifier
        self.checksum = checksum
        self.appliedAt = appliedAt
    }
}

/// Where one migration stands.
public struct MigrationStatus: Sendable, Hashable {
    /// Whether a migration was applied, and whether it changed since.
    public enum State: Sendable, Hashable {
        /// Applied at the given date.
        case applied(Date)
        /// Registered, not applied yet.
        case pending
        /// Applied, but the file's checksum has changed since: `migrate` refuses to go on.
        case changedSinceApplied(Date)
        /// Recorded as applied, but no longer registered.
        case unknown(Date)
    }
    /// The migration's identifier.
    public var identifier: String
    /// Its file, for migrations loaded from a folder.
    public var file: String?
    /// Where the migration stands.
    public var state: State
}

/// A migration failed, or cannot be trusted.
public struct MigrationError: Error, CustomStringConvertible {
    /// What went wrong.
    public enum Reason: Sendable {
        /// The migration's SQL or code threw; the underlying error is usually a ``SQLiteError``.
        case failed(any Error)
        /// The applied file has changed since it was applied.
        case checksumMismatch(recorded: String, current: String)
        /// The migration left rows that break foreign keys.
        case foreignKeyViolations(count: Int, examples: [String])
        /// A migration folder or file could not be used.
        case unreadable(String)
        /// The identifier was registered already (from `firstFile`, if any).
        case registeredTwice(firstFile: String?)
        /// The migration ran `BEGIN`, `COMMIT`, `END` or `ROLLBACK`, which was refused.
        case transactionControl(sql: String)
        /// The migration's transaction was rolled back by SQLite after an error the migration
        /// caught; the migration was not recorded.
        case transactionLost
        /// The migration is Swift code over an SQLite ``Database``, which a database other than
        /// SQLite cannot run: register it as SQL instead.
        case requiresSQLite
    }

    /// The migration, when one is concerned.
    public var identifier: String?
    /// The file or folder concerned, if any.
    public var file: String?
    /// What went wrong.
    public var reason: Reason

    package init(identifier: String?, file: String?, reason: Reason) {
        self.identifier = identifier
        self.file = file
        self.reason = reason
    }

    public var description: String {
        var text = "migration"
        if let identifier { text += " \"\(identifier)\"" }
        if let file { text += " (\(file))" }
        switch reason {
        case .failed(let error):
            text += " failed and was rolled back: \(error)"
        case .checksumMismatch(let recorded, let current):
            text +=
                " was applied, but its SQL has changed since (checksum \(recorded) then, \(current) now); "
                + "add a new migration instead of editing an applied one"
        case .foreignKeyViolations(let count, let examples):
            text += " was rolled back: it leaves \(count) foreign key violation(s): " + examples.joined(separator: "; ")
        case .unreadable(let message):
            text += ": " + message
        case .registeredTwice(let firstFile):
            text +=
                " is registered twice" + (firstFile.map { " (first from \($0))" } ?? "")
                + "; identifiers must be unique"
        case .transactionControl(let sql):
            text +=
                " was rolled back: it runs `\(sql)`, but the migrator runs each migration in a transaction of its "
                + "own, which a migration may not begin, commit or roll back (SAVEPOINT, RELEASE and ROLLBACK TO "
                + "are allowed)"
        case .transactionLost:
            text +=
                " failed: SQLite rolled back its transaction after an error that the migration caught, so it was "
                + "not recorded as applied"
        case .requiresSQLite:
            text +=
                " is written in Swift against an SQLite Database, so it cannot run on another database; "
                + "register it as SQL (registerMigration(_:sql:) or a numbered .sql file)"
        }
        return text
    }
}
