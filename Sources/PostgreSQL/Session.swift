import Locking
import PostgresNIO
import SQLite

/// Statements on one connection: what ``PostgreSQLDatabase`` and ``PostgreSQLTransaction``
/// share.
struct Session: Sendable {
    let connection: PostgresConnection
    /// Where the server is, for error messages.
    let server: String

    /// PostgresNIO logs each query at debug level; this module reports through its errors.
    static let logger: Logger = {
        var logger = Logger(label: "PostgreSQL")
        logger.logLevel = .critical
        return logger
    }()

    /// Runs one statement: its rows, owned, the count of rows it affected (or returned), and
    /// its command, such as `INSERT`, or `ROLLBACK` for a `COMMIT` that rolled back.
    func run(_ sql: String, _ arguments: [SQLiteValue]) async throws -> (rows: [Row], count: Int, command: String) {
        let (future, rows) = try start(sql, arguments)
        do {
            let metadata = try await future.get()
            let fetched = rows.withLock { $0.rows }
            return (fetched, metadata.rows ?? fetched.count, metadata.command)
        } catch {
            throw PostgreSQLError.mapping(error, sql: sql, server: server)
        }
    }

    /// ``run(_:_:)``, waiting on the calling thread: for live values' refetch rounds, which run
    /// on a queue of their own, never on an event loop.
    func runBlocking(_ sql: String, _ arguments: [SQLiteValue]) throws -> [Row] {
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
        _ sql: String, _ arguments: [SQLiteValue]
    ) throws -> (EventLoopFuture<PostgresQueryMetadata>, Lock<(names: [String]?, rows: [Row])>) {
        // PostgresNIO leaves a query on a closed connection waiting forever.
        if connection.isClosed {
            throw PostgreSQLError(
                kind: .connectionClosed, message: "the connection to \(server) is closed; open the database again",
                sql: sql)
        }
        // The column names once, shared by every row.
        let rows = Lock<(names: [String]?, rows: [Row])>((nil, []))
        // The future-based query reports the command tag's row count, which the async row
        // sequence does not expose.
        let future = connection.query(PostgresQuery(sql: sql, arguments: arguments), logger: Self.logger) { row in
            var values: [SQLiteValue] = []
            values.reserveCapacity(row.count)
            for cell in row { values.append(try SQLiteValue(cell, sql: sql)) }
            rows.withLock { state in
                if state.names == nil { state.names = row.map(\.columnName) }
                state.rows.append(Row(columnNames: state.names!, values: values))
            }
        }
        return (future, rows)
    }
}
