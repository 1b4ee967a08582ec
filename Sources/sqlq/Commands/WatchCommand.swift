import ArgumentParser
import Observation
import SharingSQLite

/// `sqlq watch TABLE`: a query kept on screen and redrawn whenever its result changes, whoever
/// changed it.
struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Show the rows that match a filter, redrawn whenever they change.",
        discussion: """
            Takes the same options as query. The result is redrawn when a commit changes it, \
            whether this machine's other programs or the sqlite3 shell made it, with a status \
            line giving the row count and the time of the last change. On a terminal the screen \
            is redrawn in place; into a pipe, each new result is written after the last. Ctrl-C \
            stops watching. A change of the table's columns is redrawn too. If the file is \
            replaced by another (mv new.db app.db), the new file is watched; if it is deleted, \
            watch stops with exit status 1. On PostgreSQL (a postgresql:// URL), the commits of \
            any client are seen once the table has change notifications: see install-notifications.

            Examples:
              sqlq watch items --where "not done and priority >= 4" --sort -priority --db app.sqlite
              sqlq watch items --where "list_id = 2" --count --db app.sqlite
              sqlq watch notes --search "release notes" --limit 5 --db app.sqlite
            """)

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var query: QueryOptions

    func run() async throws {
        if let url = try database.postgreSQLURL() {
            // The password stays out of the command that an error suggests.
            let arguments = database.db.map { ["--db", DatabaseURL.redacted($0)] } ?? []
            return try await PostgreSQLWatch.watch(url, query, databaseArguments: arguments)
        }
        let connection = try database.open(
            .read, demoNote: "nothing else can change it; pass --db FILE to watch a database file.")
        let query = self.query
        let arguments = database.commandLineArguments
        let tableQuery = try await connection.read { db in try query.makeQuery(db, databaseArguments: arguments) }
        if query.explain {
            let explanation = try await connection.read { db in try tableQuery.explanation(db) }
            let output = OutputStream(fileDescriptor: 1)
            output.write(explanation)
            output.flush()
            return
        }

        // The package's live value: refetched when a commit (of any process) may have changed it.
        let reader = SharedReader<ResultSet>(value: .empty)
        try await reader.load(.fetch(tableQuery, database: connection))

        let format = query.format
        let counts = query.count
        let options = database
        let watching = Task { () -> CommandError? in
            let display = WatchDisplay(output: OutputStream(fileDescriptor: 1), format: format, counts: counts)
            defer { display.finish() }
            for await _ in Self.changes(of: reader) {
                let (result, error) = (reader.wrappedValue, reader.loadError)
                switch error as? SharingSQLiteError {
                case .databaseFileDeleted(let path)?:
                    return CommandError.failure("the database file \"\(path)\" was deleted; stopped watching it")
                case .databaseFileReplaced(let path)?:
                    // Another file now has the name: watch it instead, as if started on it.
                    do {
                        let reopened = try options.open(.read)
                        let replacement = try await reopened.read { db in
                            try query.makeQuery(db, databaseArguments: arguments)
                        }
                        try await reader.load(.fetch(replacement, database: reopened))
                    } catch {
                        return CommandError.failure(
                            "the database file \"\(path)\" was replaced by another, which cannot be watched: "
                                + ExitStatus.message(for: error))
                    }
                    continue
                default:
                    break
                }
                // The placeholder has no columns, unlike every real result (a count included):
                // the loaded value can reach the reader just after `load` returns.
                if result == .empty && error == nil { continue }
                display.show(result, error: error.map { ExitStatus.message(for: $0) })
            }
            return nil
        }
        let interrupt = InterruptSignal { watching.cancel() }
        let failure = await watching.value
        interrupt.cancel()
        if let failure { throw failure }
    }

    /// Ticks now, then after each change of the reader's value or error.
    static func changes(of reader: SharedReader<ResultSet>) -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        @Sendable func observe() {
            withObservationTracking {
                _ = reader.wrappedValue
                _ = reader.loadError
            } onChange: {
                // Runs once the reader has changed; watch again for the next change.
                continuation.yield()
                observe()
            }
        }
        observe()
        continuation.yield()
        return stream
    }
}
