import ArgumentParser

/// `sqlq install-notifications TABLE…`: gives PostgreSQL tables the change notifications that
/// `watch` follows. A write to the database, so a command of its own, never a side effect.
struct InstallNotificationsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "install-notifications",
        abstract: "Install on PostgreSQL tables the change notifications that watch follows.",
        discussion: """
            On PostgreSQL, watch sees a commit to a table, whichever client makes it, once the \
            table has change notifications: statement triggers that record each change in a log \
            (the table live_query.changes) and wake the listeners. This installs them on each \
            TABLE, in the schema where the search path finds it; installing them again is \
            harmless. It needs a role that may create triggers on the tables (their owner) and, \
            the first time, the schema live_query; a superuser's install also makes watch follow \
            schema changes. An SQLite file needs nothing installed: watch sees every commit to it.

            Examples:
              sqlq install-notifications items lists --db postgresql://me@localhost/app
              sqlq watch items --where "not done" --db postgresql://me@localhost/app
            """)

    @Argument(help: ArgumentHelp("The tables to install the notifications on.", valueName: "table"))
    var tables: [String] = []

    @OptionGroup var database: DatabaseOptions

    func validate() throws {
        if tables.isEmpty { throw ValidationError("name at least one table to install the notifications on") }
    }

    func run() throws {
        guard let url = try database.postgreSQLURL() else {
            throw CommandError.usage(
                "install-notifications is for PostgreSQL (--db postgresql://…): an SQLite file needs nothing "
                    + "installed, watch sees every commit to it")
        }
        try PostgreSQLWatch.installNotifications(url, tables: tables)
    }
}
