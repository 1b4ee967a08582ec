import PostgresNIO

/// An error reported by PostgreSQL, or a failure to reach it, with what a person needs to act:
/// the SQLSTATE code, the server's message, detail and hint, and the SQL.
///
/// ```swift
/// do {
///     try await db.execute("SELEC 1")
/// } catch let error as PostgreSQLError where error.sqlState == "42601" {
///     print(error)   // PostgreSQL error 42601: syntax error at or near "SELEC"
///                    //   SQL: SELEC 1
/// }
/// ```
///
/// Constraint failures (SQLSTATE 23xxx) are thrown as `ConstraintViolation` instead, which
/// holds this error as its `underlying` error.
public struct PostgreSQLError: Error, CustomStringConvertible, Sendable {
    /// What kind of failure this is.
    public enum Kind: Sendable, Hashable {
        /// The server refused the statement: see ``PostgreSQLError/sqlState``.
        case server
        /// No connection could be made: nothing listens at the address, or the server refused
        /// the login.
        case connectionFailed
        /// The connection was closed, by the server or by ``PostgreSQLDatabase/close()``.
        case connectionClosed
        /// Every connection of the pool stayed in use for longer than
        /// ``PostgreSQLDatabase/Configuration/connectionWaitTimeout``: raise
        /// ``PostgreSQLDatabase/Configuration/maximumConnections`` or the wait, or hold
        /// connections for less time.
        case poolExhausted
        /// A statement in a transaction failed and its error was caught, so PostgreSQL rolled the
        /// transaction back at `COMMIT`.
        case transactionAborted
        /// A column has a type this module cannot read yet; cast it to `text` in the SQL.
        case unsupportedType
        /// Anything else PostgresNIO reported (a protocol error, say).
        case other
    }

    /// What kind of failure this is.
    public var kind: Kind
    /// The five-character SQLSTATE code, such as `42P01` (undefined table), for server errors.
    public var sqlState: String?
    /// PostgreSQL's message, or this module's.
    public var message: String
    /// PostgreSQL's detail, when it gives one.
    public var detail: String?
    /// PostgreSQL's hint, when it gives one.
    public var hint: String?
    /// The SQL that failed, when there is one.
    public var sql: String?

    /// Why a connection could not be made, when the reason is one that a program in front of
    /// a person words in its own terms (sqlq names its URL's parts).
    package enum ConnectionProblem: Sendable, Hashable {
        /// The server asks for a password, and the configuration has none.
        case passwordRequired
        /// What answered at the address closed the connection or answered something that is
        /// not PostgreSQL's protocol, before the login finished.
        case notPostgreSQL
        /// Nothing completed the login within the connect timeout: no answer at the address,
        /// or an answer that is not PostgreSQL's, or a server too busy to log in.
        case noAnswer(within: Duration)
    }

    /// Why the connection failed, for ``Kind/connectionFailed`` errors of these reasons.
    package var connectionProblem: ConnectionProblem?

    /// An error of `kind`.
    public init(
        kind: Kind, sqlState: String? = nil, message: String, detail: String? = nil, hint: String? = nil,
        sql: String? = nil
    ) {
        self.kind = kind
        self.sqlState = sqlState
        self.message = message
        self.detail = detail
        self.hint = hint
        self.sql = sql
    }

    /// The code, the message, then detail, hint and SQL on lines of their own:
    ///
    ///     PostgreSQL error 42P01: relation "itemz" does not exist
    ///       SQL: SELECT * FROM itemz
    public var description: String {
        var text =
            switch kind {
            case .server: "PostgreSQL error \(sqlState ?? "?"): \(message)"
            case .connectionFailed: "cannot connect to PostgreSQL: \(message)"
            case .connectionClosed: "the connection to PostgreSQL is closed: \(message)"
            case .poolExhausted: "no free PostgreSQL connection: \(message)"
            case .transactionAborted, .unsupportedType, .other: "PostgreSQL: \(message)"
            }
        if let detail { text += "\n  detail: \(detail)" }
        if let hint { text += "\n  hint: \(hint)" }
        if let sql { text += "\n  SQL: \(sql)" }
        return text
    }

    /// Whether the error ended the connection's session: the connection was lost, or the server
    /// ended the session (SQLSTATE class 57P: shut down, crashed, or not accepting connections).
    var endsTheSession: Bool {
        kind == .connectionClosed || (kind == .server && sqlState?.hasPrefix("57P") == true)
    }
}
