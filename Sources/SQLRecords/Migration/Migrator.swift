import QueryBuilder
import SQLCore

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

/// A database that migrations written in Swift can run on: it names what such a migration's
/// code is handed.
///
/// SQLite's `Database` hands a migration the connection, inside the migration's transaction;
/// PostgreSQL's database hands it the migration's transaction.
public protocol MigratableDatabase {
    /// The code of a migration written in Swift, on this database.
    associatedtype MigrationBody: Sendable
}

/// Applies schema migrations in order, once each, and records what it applied, on the database
/// `Target`.
///
/// The drivers name their own: SQLite's `Migrator` and PostgreSQL's `PostgreSQLMigrator`. Both
/// register SQL text, folders of numbered `.sql` files, and migrations in Swift that take the
/// database they run on:
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
/// Each migration runs in a transaction of its own: a failing migration leaves no trace, and
/// the ones before it stay applied. So a migration may not run `BEGIN`, `COMMIT`, `END` or
/// `ROLLBACK` (savepoints are fine). Applied migrations are recorded in the `schema_migrations`
/// table with their identifier, checksum and time. An applied `.sql` migration whose file has
/// changed since is an error, never skipped.
public struct DatabaseMigrator<Target: MigratableDatabase>: Sendable {
    /// One registered migration.
    public struct Migration: Sendable {
        /// Its unique identifier; for files, the file name without `.sql`.
        public let identifier: String
        /// The file it came from, if any.
        public let file: String?
        /// A checksum of the SQL, for file migrations; code cannot be checksummed.
        public let checksum: String?
        /// The SQL text, for migrations registered as SQL; nil for code.
        package let sql: String?
        /// The code, for migrations written in Swift; nil for SQL.
        package let body: Target.MigrationBody?
    }

    /// The table that records applied migrations: `schema_migrations`.
    public static var tableName: String { "schema_migrations" }

    /// The migrations, in the order they apply.
    public private(set) var migrations: [Migration] = []

    /// A migrator with no migrations registered.
    public init() {}

    /// Registers a migration written in Swift, which gets the database it runs on.
    ///
    /// Throws ``MigrationError`` when the identifier is registered already.
    public mutating func registerMigration(_ identifier: String, _ body: Target.MigrationBody) throws {
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
        Migration(identifier: identifier, file: file, checksum: checksum(sql), sql: sql, body: nil)
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

    /// Every known migration with its state, given the migrations recorded as `applied`:
    /// applied, pending, changed since applied, or applied but no longer registered.
    package func status(applied: [AppliedMigration]) -> [MigrationStatus] {
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

    /// The registered migrations that `applied` does not hold, in order, once the checksums of
    /// the applied ones are verified.
    package func pending(applied: [AppliedMigration]) throws -> [Migration] {
        try verifyChecksums(applied)
        let appliedIDs = Set(applied.map(\.identifier))
        return migrations.filter { !appliedIDs.contains($0.identifier) }
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

    // MARK: The table of applied migrations, on every database

    package static var quotedTable: String { "\"\(tableName)\"" }

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
    package static func checksum(_ text: String) -> String {
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
        /// The migration's SQL or code threw; the underlying error is the database's.
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
        }
        return text
    }
}
