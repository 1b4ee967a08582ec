import ArgumentParser

/// The commands that do not run on PostgreSQL yet, refused before they start.
enum PostgreSQLAvailability {
    /// A usage error when `command` is given a PostgreSQL URL and cannot use it yet; nil when
    /// it can, or when its database is an SQLite file.
    static func refusal(for command: any ParsableCommand) -> CommandError? {
        let name: String
        let database: DatabaseOptions
        // Concrete casts: a cast to a protocol scans every conformance record of the binary.
        switch command {
        case let command as SQLCommand: (name, database) = ("sql", command.database)
        case let command as MigrateCommand: (name, database) = ("migrate", command.database)
        case let command as SearchIndexCommand: (name, database) = ("search-index", command.database)
        #if HTTP
            case let command as ServeCommand: (name, database) = ("serve", command.database)
        #endif
        default: return nil
        }
        guard database.isPostgreSQL else { return nil }
        return .usage(
            "sqlq \(name) is not available on PostgreSQL yet; on PostgreSQL, sqlq runs tables, schema, query, watch, delete, import, install-notifications and uninstall-notifications"
        )
    }
}
