import PostgresNIO
import QueryBuilder
import SQLCore
import SQLRecords

/// A PostgreSQL database: statements with `$1, $2…` arguments, rows as the SQLite module's
/// `Row`s, transactions, and the same migrations as SQLite.
///
/// ```swift
/// let db = try await PostgreSQLDatabase(
///     .init(address: .host("localhost", port: 5432), user: "app", database: "todo"))
/// try await db.execute("INSERT INTO items(title, done) VALUES ($1, $2)", ["milk", 0])
/// let items = try await db.fetchAll("SELECT id, title, done FROM items")
/// let done: Bool = try items[0]["done"]
/// await db.close()
/// ```
///
/// Statements run on a pool of connections: each borrows a free one for its run, and each
/// ``transaction(_:)`` borrows one for its whole body, so that other statements never land
/// inside it. The pool opens connections as they are needed, up to
/// ``Configuration/maximumConnections`` (10 by default), and reuses them; beyond it, a statement
/// waits for a free connection at most ``Configuration/connectionWaitTimeout`` (10 seconds by
/// default), then throws ``PostgreSQLError/Kind/poolExhausted``.
///
/// A connection the server closed, on a restart or by `pg_terminate_backend`, is dropped: the
/// statement that was running on it throws ``PostgreSQLError/Kind/connectionClosed``, and the
/// next one opens a fresh connection, so the database works again by itself once the server
/// is back. Opening a connection fails with ``PostgreSQLError/Kind/connectionFailed`` within
/// ``Configuration/connectTimeout`` when the server refuses it or does not answer, with no
/// retry in the background.
///
/// On a host address, TLS follows ``Configuration/tls``: `.prefer` by default, `.require` to
/// insist on encryption, `.verifyFull` to also check the server's certificate and name. Unix
/// sockets never use TLS.
///
/// Call ``close()`` when done, to wait until every connection is closed; a database released
/// without it closes them in the background.
public final class PostgreSQLDatabase: Sendable {
    /// Where this database connects, and as whom.
    public let configuration: Configuration
    let pool: ConnectionPool

    /// Opens the pool's first connection. Throws ``PostgreSQLError`` of kind
    /// ``PostgreSQLError/Kind/connectionFailed`` when nothing answers at the address, the server
    /// refuses the login, or TLS fails as ``Configuration/tls`` requires.
    public init(_ configuration: Configuration) async throws {
        self.configuration = configuration
        pool = try await ConnectionPool(configuration: configuration)
    }

    deinit {
        pool.closeInBackground()
    }

    /// Closes every connection and waits until they are closed. Statements still running fail;
    /// later ones throw ``PostgreSQLError/Kind/connectionClosed``.
    public func close() async {
        await pool.close()
    }

    /// Runs `body` in a transaction on a connection it borrows from the pool for the whole
    /// body: committed when `body` returns, rolled back when it throws (the error is rethrown).
    ///
    /// A statement that fails inside aborts the transaction even when `body` catches its error:
    /// PostgreSQL then rolls back at `COMMIT`, which throws ``PostgreSQLError`` of kind
    /// ``PostgreSQLError/Kind/transactionAborted`` rather than pass for a commit.
    ///
    /// `body` runs at most once. When `BEGIN` meets a free connection the server closed (a
    /// restart the client had not heard of yet), the transaction starts again on a fresh one.
    @discardableResult
    public func transaction<Result: Sendable>(
        _ body: (PostgreSQLTransaction) async throws -> Result
    ) async throws -> Result {
        // A free connection the server closed (a restart) before this client noticed fails at
        // its first statement: closed, or with the server's farewell (SQLSTATE class 57P). When
        // that is BEGIN, which changes nothing, and the body has not run, the transaction starts
        // again on a fresh connection: once, so that a server that keeps closing connections
        // fails the call.
        for attempt in 1...2 {
            let outcome: Result? = try await pool.withConnection(sql: "BEGIN") { connection in
                let session = Session(connection: connection, server: configuration.serverDescription)
                do {
                    _ = try await session.run("BEGIN", [])
                } catch let error as PostgreSQLError where error.endsTheSession && attempt == 1 {
                    // Closed here too, so that the pool drops it rather than lend it again.
                    try? await connection.close()
                    return nil
                }
                return try await Self.transaction(afterBeginOn: session, body)
            }
            if let outcome { return outcome }
        }
        preconditionFailure("the second attempt returns or throws")
    }

    /// Runs `body` on a session over a connection borrowed for it.
    @_spi(Session) public func withSession<T: Sendable>(
        sql: String?, _ body: (Session) async throws -> T
    ) async throws -> T {
        try await pool.withConnection(sql: sql) { connection in
            var session = Session(connection: connection, server: configuration.serverDescription)
            session.isLentForOneStatement = true
            return try await body(session)
        }
    }

    /// Runs `body` in the transaction `session` has begun, and commits or rolls it back.
    private static func transaction<Result: Sendable>(
        afterBeginOn session: Session, _ body: (PostgreSQLTransaction) async throws -> Result
    ) async throws -> Result {
        let result: Result
        do {
            result = try await body(PostgreSQLTransaction(session: session))
        } catch {
            do {
                _ = try await session.run("ROLLBACK", [])
            } catch {
                // A connection whose transaction may still be open must not go back to the pool.
                try? await session.connection.close()
            }
            // A primary key violation is told by a query the aborted transaction refused.
            throw await session.primaryKeyNamed(error)
        }
        if try await session.run("COMMIT", []).command == "ROLLBACK" {
            throw PostgreSQLError(
                kind: .transactionAborted,
                message:
                    "the transaction was rolled back instead of committed: a statement in it failed, and its "
                    + "error was caught",
                sql: "COMMIT")
        }
        return result
    }
}
