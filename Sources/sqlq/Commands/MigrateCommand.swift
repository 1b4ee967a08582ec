import ArgumentParser
import SQLite

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#endif

/// `sqlq migrate`: applies a folder of numbered `.sql` migrations with the package's `Migrator`.
struct MigrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Apply the pending migrations of a folder of numbered .sql files.",
        discussion: """
            Migrations are files named NNNN_name.sql, applied in order, once each, each in its own \
            transaction. Applied ones are recorded in the schema_migrations table; an applied file \
            that was edited since is an error. The database file is created if needed.

            Examples:
              sqlq migrate --db app.sqlite --dir Migrations
              sqlq migrate --db app.sqlite --status
            """)

    @OptionGroup var database: DatabaseOptions

    @Option(
        help: ArgumentHelp(
            "The folder of migrations. Defaults to Migrations/ in the working folder (never the demo's).",
            valueName: "dir"),
        completion: .directory)
    var dir: String?

    @Flag(help: "Show each migration's state (applied, pending, changed) instead of applying them.")
    var status = false

    func run() throws {
        do {
            try migrate()
        } catch let error as MigrationError {
            if case .failed(let cause) = error.reason,
                let failure = database.failure(
                    cause,
                    outcome: "migration \"\(error.identifier ?? "")\" and those after it were not applied; "
                        + "--status shows which were")
            {
                throw failure
            }
            throw error
        } catch {
            throw database.failure(error, outcome: status ? nil : "no migration was applied") ?? error
        }
    }

    private func migrate() throws {
        guard let directory = dir ?? Self.workingFolderMigrations() else {
            throw CommandError.usage("no Migrations/ folder here; name the folder with --dir")
        }
        var migrator = Migrator()
        try migrator.registerMigrations(inDirectory: directory)
        let output = OutputStream(fileDescriptor: 1)
        let style = TextStyle.forDescriptor(1)
        defer { output.flush() }

        if status {
            let connection = try database.open(.read)
            for migration in try migrator.status(connection) {
                let (state, detail): (String, String) =
                    switch migration.state {
                    case .applied(let date): (style.green("applied "), " " + Self.time(date))
                    case .pending: (style.yellow("pending "), "")
                    case .changedSinceApplied(let date):
                        (style.red("changed "), " " + Self.time(date) + ", edited since")
                    case .unknown(let date): (style.yellow("unknown "), " " + Self.time(date) + ", no such file now")
                    }
                output.writeLine(state + " " + migration.identifier + detail)
            }
            return
        }

        guard database.path != nil else {
            throw CommandError.usage("migrate changes a database file: pass --db FILE or set SQLQ_DATABASE")
        }
        let connection = try database.open(.create)
        let pending = try migrator.status(connection).filter { $0.state == .pending }.map(\.identifier)
        try migrator.migrate(connection)
        for identifier in pending { output.writeLine("applied " + identifier) }
        let count = pending.count == 1 ? "1 migration" : "\(pending.count) migrations"
        output.writeLine(
            pending.isEmpty
                ? "Nothing to apply: the database is up to date." : "Applied \(count); the database is up to date.")
    }

    /// `Migrations/` in the working folder, if there is one. Not the demo database's folder,
    /// which the build knows: its migrations are for the demo, never for the user's file.
    static func workingFolderMigrations() -> String? {
        let path = FileManager.default.currentDirectoryPath + "/Migrations"
        var status = stat()
        guard stat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFDIR else { return nil }
        return path
    }

    private static func time(_ date: some DatabaseValueConvertible) -> String {
        ((try? date.databaseValue)?.cellText ?? "\(date)") + " UTC"
    }
}
