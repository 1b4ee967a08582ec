import ArgumentParser

/// `sqlq uninstall-notifications TABLE…` or `--all`: removes what `install-notifications`
/// installed. A write to the database, so a command of its own.
struct UninstallNotificationsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "uninstall-notifications",
        abstract: "Remove from PostgreSQL tables the change notifications that install-notifications installed.",
        discussion: """
            Drops the change triggers of each TABLE: its commits are no longer recorded, and \
            watch no longer sees them. With --all, removes everything the installs put in the \
            database: the triggers of every table, the event triggers, the functions, and the \
            schema live_query with the change log. Each table's triggers go in a transaction of \
            their own, which waits for the table's lock at most 100 ms at a time, so other \
            sessions' writes never fail or queue behind it.

            Examples:
              sqlq uninstall-notifications items --db postgresql://me@localhost/app
              sqlq uninstall-notifications --all --db postgresql://me@localhost/app
            """)

    @Argument(help: ArgumentHelp("The tables to remove the notifications from.", valueName: "table"))
    var tables: [String] = []

    @Flag(help: "Remove every table's notifications, and the schema live_query with the change log.")
    var all = false

    @OptionGroup var database: DatabaseOptions

    func validate() throws {
        if tables.isEmpty && !all {
            throw ValidationError("name the tables to remove the notifications from, or pass --all")
        }
        if !tables.isEmpty && all {
            throw ValidationError("--all removes every table's notifications: name no table with it")
        }
    }

    func run() throws {
        guard let url = try database.postgreSQLURL() else {
            throw CommandError.usage(
                "uninstall-notifications is for PostgreSQL (--db postgresql://…): an SQLite file has nothing installed")
        }
        try PostgreSQLWatch.uninstallNotifications(url, tables: tables, all: all)
    }
}
