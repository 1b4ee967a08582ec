import Locking
import PostgresNIO
import QueryBuilder
import SQLCore
import SQLRecords

/// Statements on one connection: what ``PostgreSQLDatabase`` and ``PostgreSQLTransaction``
/// share. Public only to the module's own ``PostgreSQLExecutor`` requirement, whose methods run
/// on it; nothing of it is visible to clients.
@_spi(Session) public struct Session: Sendable {
    let connection: PostgresConnection
    /// Where the server is, for error messages.
    let server: String
    /// Set while a migration's Swift code runs on this session, whose transaction that code may
    /// not end. One reference: as a tuple of its fields it made every fetch of many rows 6 %
    /// slower (measured with `run-postgres`).
    var migration: MigrationGuard? = nil
    /// True when the connection is lent for this one statement by the database's pool, outside
    /// any ``PostgreSQLDatabase/transaction(_:)``.
    var isLentForOneStatement = false

    /// PostgresNIO logs each query at debug level; this module reports through its errors.
    static let logger: Logger = {
        var logger = Logger(label: "PostgreSQL")
        logger.logLevel = .critical
        return logger
    }()

    /// Runs one statement: its rows, owned, the count of rows it affected (or returned), and
    /// its command, such as `INSERT`, or `ROLLBACK` for a `COMMIT` that rolled back.
    func run(_ sql: String, _ arguments: [DatabaseValue]) async throws -> (rows: [Row], count: Int, command: String) {
        let (future, rows) = try start(sql, arguments)
        let metadata: PostgresQueryMetadata
        do {
            metadata = try await future.get()
        } catch {
            throw await primaryKeyNamed(PostgreSQLError.mapping(error, sql: sql, server: server))
        }
        if isLentForOneStatement && (metadata.command == "BEGIN" || metadata.command == "START TRANSACTION") {
            try await refuseTransaction(begunBy: sql)
        }
        let fetched = rows.withLock { $0.rows }
        return (fetched, metadata.rows ?? fetched.count, metadata.command)
    }

    /// Ends the transaction that `sql` began on a connection lent for one statement, which
    /// would otherwise go back to the pool inside it, and throws. Told by the command tag, so
    /// that no spelling (a comment first, lower case) slips through.
    private func refuseTransaction(begunBy sql: String) async throws -> Never {
        _ = try? await connection.query(PostgresQuery(unsafeSQL: "ROLLBACK"), logger: Self.logger).get()
        throw PostgreSQLError(
            kind: .other,
            message:
                "a transaction cannot begin with a statement of its own: each statement of a PostgreSQLDatabase "
                + "runs on a connection its pool lends for that statement alone; run the statements in "
                + "transaction(_:) instead",
            sql: sql)
    }

    /// `error`, with a unique violation of a primary key reported as `.primaryKey`,
    /// as SQLite reports it (PostgreSQL reports both as 23505). The constraint's kind comes from
    /// `pg_constraint`; inside a transaction, which the failure aborted and which refuses that query, by
    /// PostgreSQL's default name for a primary key, `<table>_pkey`, until the transaction ends.
    func primaryKeyNamed(_ error: any Error) async -> any Error {
        guard var violation = error as? ConstraintViolation, violation.kind == .unique,
            let constraint = violation.constraint
        else { return error }
        let isPrimaryKey: Bool
        do {
            let rows = try await run(
                """
                SELECT c.contype::text FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid
                WHERE c.conname = $1 AND t.relname = $2 AND pg_table_is_visible(t.oid)
                """, [.text(constraint), .text(violation.table)]
            ).rows
            isPrimaryKey = rows.contains { $0.value(at: 0) == .text("p") }
        } catch {
            isPrimaryKey = constraint == violation.table + "_pkey"
        }
        if isPrimaryKey { violation.kind = .primaryKey }
        return violation
    }

    /// ``run(_:_:)``, waiting on the calling thread: for live values' refetch rounds, which run
    /// on a queue of their own, never on an event loop.
    func runBlocking(_ sql: String, _ arguments: [DatabaseValue]) throws -> [Row] {
        let (future, rows) = try start(sql, arguments)
        do {
            _ = try future.wait()
            return rows.withLock { $0.rows }
        } catch {
            throw PostgreSQLError.mapping(error, sql: sql, server: server)
        }
    }

    /// Sends one statement; the rows gather in the lock as they arrive.
    private func start(
        _ sql: String, _ arguments: [DatabaseValue]
    ) throws -> (EventLoopFuture<PostgresQueryMetadata>, Lock<(names: [String]?, rows: [Row])>) {
        try migration?.check(sql)
        // PostgresNIO leaves a query on a closed connection waiting forever.
        if connection.isClosed {
            throw PostgreSQLError(
                kind: .connectionClosed,
                message: "the connection to \(server) was closed, by the server or the network",
                sql: sql)
        }
        // The column names once, shared by every row.
        let rows = Lock<(names: [String]?, rows: [Row])>((nil, []))
        // The future-based query reports the command tag's row count, which the async row
        // sequence does not expose.
        let future = connection.query(PostgresQuery(sql: sql, arguments: arguments), logger: Self.logger) { row in
            var values: [DatabaseValue] = []
            values.reserveCapacity(row.count)
            for cell in row { values.append(try DatabaseValue(cell, sql: sql)) }
            rows.withLock { state in
                if state.names == nil { state.names = row.map(\.columnName) }
                state.rows.append(Row(columnNames: state.names!, values: values))
            }
        }
        return (future, rows)
    }
}

/// The migration whose Swift code runs on a session, and the first statement it was refused.
final class MigrationGuard: Sendable {
    let identifier: String
    let file: String?
    let refusal = Lock<MigrationError?>(nil)

    init(identifier: String, file: String?) {
        self.identifier = identifier
        self.file = file
    }

    /// Throws, and keeps the refusal even when the code catches it, when `sql` would end the
    /// migration's transaction: it would commit part of the migration.
    func check(_ sql: String) throws {
        guard PostgreSQLMigrator.endsTransaction(sql) else { return }
        let refused = MigrationError(identifier: identifier, file: file, reason: .transactionControl(sql: sql))
        refusal.withLock { first in first = first ?? refused }
        throw refused
    }
}
