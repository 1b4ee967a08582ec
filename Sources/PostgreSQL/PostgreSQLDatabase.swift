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
/// It holds one `PostgresConnection` of PostgresNIO, opened by the initializer, rather than a
/// `PostgresClient` pool: the pool retries a refused connection in the background and lets
/// queries wait for it without an error, where a connection fails at once with a
/// ``PostgreSQLError`` that says why. Statements from any number of tasks share the connection,
/// which sends them in turn; each ``transaction(_:)`` opens a connection of its own, so that
/// other statements never land inside it. Call ``close()`` when done, to wait until the connection
/// is closed; a database released without it closes in the background. After the server closes
/// the connection, statements throw
/// ``PostgreSQLError/Kind/connectionClosed``: open the database again.
public final class PostgreSQLDatabase: Sendable {
    /// Where this database connects, and as whom.
    public let configuration: Configuration
    @_spi(Session) public let session: Session

    /// Connects to the server. Throws ``PostgreSQLError`` of kind
    /// ``PostgreSQLError/Kind/connectionFailed`` when nothing answers at the address or the
    /// server refuses the login.
    public init(_ configuration: Configuration) async throws {
        self.configuration = configuration
        session = try await Self.connect(configuration)
    }

    static func connect(_ configuration: Configuration) async throws -> Session {
        let server = configuration.serverDescription
        do {
            let connection = try await PostgresConnection.connect(
                configuration: configuration.connectionConfiguration(), id: 0, logger: Session.logger)
            return Session(connection: connection, server: server)
        } catch {
            throw PostgreSQLError.mapping(error, sql: nil, server: server)
        }
    }

    deinit {
        let connection = session.connection
        // The connection must outlive its closing: PostgresNIO checks that it was closed.
        connection.close().whenComplete { _ in withExtendedLifetime(connection) {} }
    }

    /// Closes the connection. Statements still running fail; later ones throw
    /// ``PostgreSQLError/Kind/connectionClosed``.
    public func close() async {
        try? await session.connection.close()
    }

    /// Runs `body` in a transaction on a connection of its own: committed when `body` returns,
    /// rolled back when it throws (the error is rethrown).
    ///
    /// A statement that fails inside aborts the transaction even when `body` catches its error:
    /// PostgreSQL then rolls back at `COMMIT`, which throws ``PostgreSQLError`` of kind
    /// ``PostgreSQLError/Kind/transactionAborted`` rather than pass for a commit.
    @discardableResult
    public func transaction<Result: Sendable>(
        _ body: (PostgreSQLTransaction) async throws -> Result
    ) async throws -> Result {
        let session = try await Self.connect(configuration)
        do {
            let result = try await Self.transaction(on: session, body)
            try? await session.connection.close()
            return result
        } catch {
            try? await session.connection.close()
            throw error
        }
    }

    private static func transaction<Result: Sendable>(
        on session: Session, _ body: (PostgreSQLTransaction) async throws -> Result
    ) async throws -> Result {
        _ = try await session.run("BEGIN", [])
        let result: Result
        do {
            result = try await body(PostgreSQLTransaction(session: session))
        } catch {
            _ = try? await session.run("ROLLBACK", [])
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
