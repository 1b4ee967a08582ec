import ArgumentParser
import Dispatch

#if canImport(Glibc)
    import Glibc
#endif

/// `sqlq`: dynamic filtered queries against any SQLite file, from the command line, and live.
@main
struct SQLQ: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sqlq",
        abstract: "Run dynamic filtered queries against a SQLite database, and watch them live.",
        discussion: """
            Examples:
              sqlq query items --where "priority >= 3 and not done" --sort -due --limit 10
              sqlq watch items --where "list_id = 2" --db app.sqlite
              sqlq tables --db app.sqlite
              sqlq search-index notes title body --db app.sqlite
              sqlq query notes --search "swi conc" --db app.sqlite
              sqlq sql "SELECT count(*) FROM items WHERE due < ?" --param 2026-03-01

            The database is --db PATH, else $SQLQ_DATABASE, else the demo database built in memory \
            from Migrations/. Read commands open it read-only. tables, schema, query, watch, delete and \
            import also run on PostgreSQL: --db postgresql://user@host/db, or $DATABASE_URL.

            Exit status: 0 on success, 1 for a database or runtime error, 2 for a usage or parse \
            error. Colour is used only on a terminal, and never when NO_COLOR is set.
            """,
        version: "0.1.0",
        subcommands: subcommands
    )

    #if HTTP
        private static let subcommands: [any ParsableCommand.Type] = [
            QueryCommand.self, WatchCommand.self, TablesCommand.self, SchemaCommand.self,
            MigrateCommand.self, DeleteCommand.self, ImportCommand.self, SQLCommand.self, SearchIndexCommand.self,
            InstallNotificationsCommand.self, UninstallNotificationsCommand.self, ServeCommand.self,
        ]
    #else
        private static let subcommands: [any ParsableCommand.Type] = [
            QueryCommand.self, WatchCommand.self, TablesCommand.self, SchemaCommand.self,
            MigrateCommand.self, DeleteCommand.self, ImportCommand.self, SQLCommand.self, SearchIndexCommand.self,
            InstallNotificationsCommand.self, UninstallNotificationsCommand.self,
        ]
    #endif

    /// Parses the arguments, runs the command, and exits with 0, 1 or 2: usage errors are 2 here,
    /// not the 64 argument-parser uses by default, and every error is one message on standard
    /// error.
    ///
    /// The entry point is synchronous, so that the commands that need no concurrency (`query`
    /// among them) start no thread; `watch` and `delete` run in a task that exits the process.
    static func main() {
        let command: any ParsableCommand
        do {
            command = try parseAsRoot(nil)
        } catch {
            Glibc.exit(reportParseError(error))
        }
        if let refusal = PostgreSQLAvailability.refusal(for: command) { Glibc.exit(ExitStatus.report(refusal)) }
        // Casts to the concrete types: a cast to a protocol would scan every conformance record
        // of the binary, which costs more than the query itself.
        switch command {
        case let watch as WatchCommand: run(watch)
        case let delete as DeleteCommand: run(delete)
        #if HTTP
            case let serve as ServeCommand: run(serve)
        #endif
        default:
            var command = command
            Glibc.exit(finish { try command.run() })
        }
    }

    /// Runs an async command in a task, which exits the process when the command is done.
    private static func run(_ command: sending any AsyncParsableCommand) -> Never {
        Task {
            var command = command
            let status: Int32
            do {
                try await command.run()
                status = ExitStatus.success
            } catch {
                status = finish { throw error }
            }
            Glibc.exit(status)
        }
        dispatchMain()
    }

    /// Runs `body` and returns the exit status for how it ended.
    private static func finish(_ body: () throws -> Void) -> Int32 {
        do {
            try body()
            return ExitStatus.success
        } catch {
            if exitCode(for: error) == .success { return reportParseError(error) }
            return ExitStatus.report(error)
        }
    }

    /// Help and version go to standard output with status 0; other parse errors to standard
    /// error with status 2.
    private static func reportParseError(_ error: any Error) -> Int32 {
        let message = fullMessage(for: error)
        if exitCode(for: error) == .success {
            let output = OutputStream(fileDescriptor: 1)
            output.writeLine(message)
            output.flush()
            return ExitStatus.success
        }
        let errors = OutputStream(fileDescriptor: 2)
        errors.writeLine(message)
        errors.flush()
        return ExitStatus.usage
    }
}
