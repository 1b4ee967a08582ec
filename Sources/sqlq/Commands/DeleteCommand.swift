import ArgumentParser
import Queryable
import SQLite

#if canImport(Glibc)
    import Glibc
#endif

/// `sqlq delete TABLE --where EXPR`: counts the matching rows, asks for confirmation, and deletes
/// them in one transaction.
struct DeleteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete the rows of a table that match a filter, after confirmation.",
        discussion: """
            Shows how many rows match and asks before deleting them. Without a terminal to ask \
            on, it refuses unless --yes is given. The rows are deleted in one transaction, with \
            the filter's values bound; if the number of matching rows changed since the \
            confirmation, nothing is deleted.

            Examples:
              sqlq delete items --where "done and due < 2026-01-01" --db app.sqlite
              sqlq delete items --where "list_id = 4" --yes --db app.sqlite
            """)

    @OptionGroup var database: DatabaseOptions

    @Argument(help: "The table to delete from.")
    var table: String

    @Option(
        name: .customLong("where"), parsing: .unconditionalSingleValue,
        help: ArgumentHelp("A filter expression, as for query. Required; repeat to require several.", valueName: "expr")
    )
    var filters: [String] = []

    @Flag(name: [.short, .long], help: "Delete without asking, for scripts.")
    var yes = false

    func validate() throws {
        if filters.isEmpty {
            throw ValidationError("delete needs at least one --where; it never deletes a whole table by accident")
        }
    }

    func run() async throws {
        do {
            try await delete()
        } catch {
            throw database.failure(error, outcome: "nothing was deleted") ?? error
        }
    }

    private func delete() async throws {
        if let url = try database.postgreSQLURL() {
            return try await PostgreSQLDelete.run(url, table: table, filters: filters, yes: yes)
        }
        let connection = try database.open(.write, demoNote: "deleted rows are gone when sqlq exits.")
        let (table, filters) = (self.table, self.filters)
        let (tableName, filter) = try await connection.read { db -> (String, SQLExpression) in
            let schema = try TableSchema(db, table: table)
            // One balanced AND, within the values a statement binds, as for query.
            return (schema.name, try FilterCompiler.compile(filters, schema: schema, db: db))
        }
        let request = Table(tableName).filter(filter)
        let count = try await connection.read { db in try request.fetchCount(db) }
        let output = OutputStream(fileDescriptor: 1)
        defer { output.flush() }
        guard count > 0 else {
            output.writeLine(Self.noMatch(tableName))
            return
        }
        try await Self.confirm(count, of: tableName, filters: filters, yes: yes)

        // Recounted inside the transaction so that what goes is exactly what was confirmed.
        let deleted = try await connection.write { db -> Int in
            let now = try request.fetchCount(db)
            guard now == count else { throw Self.changed(now: now, confirmed: count) }
            return try request.deleteAll(db)
        }
        output.writeLine(Self.summary(deleted, from: tableName))
    }

    /// Asks on the terminal whether to delete the `count` rows (at least one) of `tableName`
    /// that match `filters`, or, without a terminal, refuses unless `yes`; throws unless confirmed.
    static func confirm(_ count: Int, of tableName: String, filters: [String], yes: Bool) async throws {
        let rows = count == 1 ? "1 row" : "\(count) rows"

        let input = FileDescriptorLineReader.standardInput
        if !yes && !input.isTerminal {
            throw CommandError.usage(
                "refusing to delete \(rows) of \"\(tableName)\" without confirmation: standard input is not a terminal; "
                    + "pass --yes to delete them")
        }
        let confirmation = Queryable<Int, Bool>()
        let subject = "of \"\(tableName)\" where \(filters.joined(separator: " and "))"
        let presenter = Task { [yes] in
            await TerminalPresenter(input: input, answersWithDefaults: yes).present(confirmation) { count in
                .confirmation(
                    "Delete \(count == 1 ? "1 row" : "\(count) rows") \(subject)?", default: yes ? true : false)
            }
        }
        defer { presenter.cancel() }
        let confirmed: Bool
        do {
            confirmed = try await confirmation.query(with: count)
        } catch let error as QueryCancellationError {
            throw CommandError.failure("not confirmed: \(error.reason); nothing deleted")
        }
        guard confirmed else { throw CommandError.failure("not confirmed; nothing deleted") }
    }

    /// What is printed when no row matches.
    static func noMatch(_ tableName: String) -> String {
        "No rows of \"\(tableName)\" match; nothing deleted."
    }

    /// What is printed once the rows are deleted.
    static func summary(_ deleted: Int, from tableName: String) -> String {
        "Deleted \(deleted == 1 ? "1 row" : "\(deleted) rows") from \"\(tableName)\"."
    }

    /// The error when `now` rows match at the deletion, not the `confirmed` count.
    static func changed(now: Int, confirmed: Int) -> CommandError {
        CommandError.failure(
            "\(now) rows match now, not the \(confirmed) confirmed: the table changed meanwhile; nothing deleted")
    }
}
