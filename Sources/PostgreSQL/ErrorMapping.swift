import PostgresNIO
import QueryBuilder
import SQLCore
import SQLRecords

extension PostgreSQLError {
    /// `error`, from PostgresNIO, as this module's error: a ``PostgreSQLError``, or a
    /// `ConstraintViolation` for the constraint failures that SQLite reports as such too.
    /// PostgresNIO's own description hides the server's fields (they may hold data), so they
    /// are read one by one.
    /// `tls` is the configuration's mode when connecting, to tell TLS failures apart.
    static func mapping(
        _ error: any Error, sql: String?, server: String, tls: PostgreSQLDatabase.Configuration.TLS? = nil
    ) -> any Error {
        if error is PostgreSQLError || error is ConstraintViolation { return error }
        guard let error = error as? PSQLError else {
            return PostgreSQLError(kind: .other, message: String(describing: error), sql: sql)
        }
        return mapping(error, sql: sql, server: server, tls: tls)
    }

    /// `error`, raised while opening a connection with `configuration`, as this module's error:
    /// with the reason in words a person can act on when the server asks for a password that
    /// was not given, or what answers is not PostgreSQL.
    static func connecting(_ error: any Error, _ configuration: PostgreSQLDatabase.Configuration) -> any Error {
        let server = configuration.serverDescription
        guard let error = error as? PSQLError else {
            return mapping(error, sql: nil, server: server, tls: configuration.tls)
        }
        let problem: ConnectionProblem
        let message: String
        switch error.code {
        case .authMechanismRequiresPassword:
            problem = .passwordRequired
            message =
                "the server at \(server) asks for a password for role \"\(configuration.user)\", and none was "
                + "given: set the configuration's password"
        case .serverClosedConnection, .clientClosedConnection, .uncleanShutdown, .messageDecodingFailure,
            .unexpectedBackendMessage, .receivedUnencryptedDataAfterSSLRequest:
            if tlsFailure(error.underlying, server: server, tls: configuration.tls) != nil {
                return mapping(error, sql: nil, server: server, tls: configuration.tls)
            }
            problem = .notPostgreSQL
            let what =
                [.messageDecodingFailure, .unexpectedBackendMessage].contains(error.code)
                ? "answered with something that is not PostgreSQL's protocol"
                : "closed the connection before the login finished, with no PostgreSQL error"
            message =
                "what answers at \(server) did not answer as a PostgreSQL server (it \(what)); "
                + "check that the host and port are the PostgreSQL server's"
        case .connectionError where (error.underlying as? IOError)?.errnoCode == ECONNRESET:
            // Reset after it was accepted: a listener that is not PostgreSQL, refusing the startup.
            problem = .notPostgreSQL
            message =
                "what answers at \(server) did not answer as a PostgreSQL server (it reset the connection before "
                + "the login finished); check that the host and port are the PostgreSQL server's"
        case .connectionError where error.underlying.map(Self.isConnectTimeout) == true:
            problem = .noAnswer(within: configuration.connectTimeout)
            message =
                "no PostgreSQL server answered at \(server) within the connect timeout "
                + "(\(configuration.connectTimeout)): nothing answers there, or what answers is not a PostgreSQL "
                + "server, or the server is too busy to log in; check the host and port, or raise connectTimeout"
        default:
            return mapping(error, sql: nil, server: server, tls: configuration.tls)
        }
        var failure = PostgreSQLError(kind: .connectionFailed, message: message)
        failure.connectionProblem = problem
        return failure
    }

    /// The errno a connect failed with: the socket's, or the one that every address of a host
    /// failed with; nil for any other failure.
    private static func connectErrno(_ error: (any Error)?) -> CInt? {
        if let error = error as? IOError { return error.errnoCode }
        guard let error = error as? NIOConnectionError, !error.connectionErrors.isEmpty,
            error.dnsAError == nil, error.dnsAAAAError == nil
        else { return nil }
        let codes = Set(error.connectionErrors.map { ($0.error as? IOError)?.errnoCode })
        return codes.count == 1 ? codes.first! : nil
    }

    /// Whether `error` is the connect deadline passing: the TCP connection's, or the login's.
    private static func isConnectTimeout(_ error: any Error) -> Bool {
        if case .connectTimeout = error as? ChannelError { return true }
        return false
    }

    private static func mapping(
        _ error: PSQLError, sql: String?, server: String, tls: PostgreSQLDatabase.Configuration.TLS?
    ) -> any Error {
        switch error.code {
        case .server:
            let info = error.serverInfo
            let failure = PostgreSQLError(
                kind: .server, sqlState: info?[.sqlState], message: info?[.message] ?? "unknown error",
                detail: info?[.detail], hint: info?[.hint], sql: sql)
            return violation(
                failure, table: info?[.tableName], column: info?[.columnName],
                constraint: info?[.constraintName]) ?? failure
        case .connectionError:
            if let tlsFailure = tlsFailure(error.underlying, server: server, tls: tls) {
                return PostgreSQLError(kind: .connectionFailed, message: tlsFailure, sql: sql)
            }
            switch connectErrno(error.underlying) {
            case ECONNREFUSED:
                return PostgreSQLError(
                    kind: .connectionFailed,
                    message: "nothing listens at \(server) (connection refused); check that the server runs and "
                        + "accepts connections there", sql: sql)
            case ENOENT:
                return PostgreSQLError(
                    kind: .connectionFailed,
                    message: "no PostgreSQL socket at \(server) (no such file); check that the server runs, and "
                        + "that its socket directory and port are these", sql: sql)
            default: break
            }
            let cause = error.underlying.map { String(describing: $0) } ?? "no connection"
            return PostgreSQLError(
                kind: .connectionFailed,
                message: "\(cause) (at \(server)); check that the server runs and accepts connections there",
                sql: sql)
        case .sslUnsupported:
            return PostgreSQLError(
                kind: .connectionFailed,
                message:
                    "the server at \(server) offers no TLS, and the configuration requires it (tls: \(tls.map { "\($0)" } ?? "require")); "
                    + "turn ssl on in the server's configuration, or use tls: .prefer",
                sql: sql)
        case .serverClosedConnection, .clientClosedConnection, .uncleanShutdown:
            if tls != nil, let tlsFailure = tlsFailure(error.underlying, server: server, tls: tls) {
                return PostgreSQLError(kind: .connectionFailed, message: tlsFailure, sql: sql)
            }
            return PostgreSQLError(
                kind: tls == nil ? .connectionClosed : .connectionFailed,
                message: "\(error.code) (at \(server)); the next statement opens a new connection",
                sql: sql)
        default:
            let cause = error.underlying.map { ": \($0)" } ?? ""
            return PostgreSQLError(kind: .other, message: "\(error.code)\(cause)", sql: sql)
        }
    }

    /// What a TLS failure while connecting means, or nil when `error` is none.
    private static func tlsFailure(
        _ error: (any Error)?, server: String, tls: PostgreSQLDatabase.Configuration.TLS?
    ) -> String? {
        guard let error else { return nil }
        if let extra = error as? NIOSSLExtraError, extra == .failedToValidateHostname {
            return "the server's TLS certificate at \(server) does not name that host (tls: .verifyFull): \(extra)"
        }
        if error is NIOSSLError || error is BoringSSLError {
            let check = if case .verifyFull = tls { "; check verifyFull's caFile" } else { "" }
            return "the server's TLS certificate at \(server) failed verification, or TLS failed: \(error)\(check)"
        }
        return nil
    }

    /// The constraint violation a server error reports (SQLSTATE 23505, 23502, 23503, 23514),
    /// with the table and column PostgreSQL names.
    private static func violation(
        _ error: PostgreSQLError, table: String?, column: String?, constraint: String?
    ) -> ConstraintViolation? {
        let kind: ConstraintViolation.Kind
        switch error.sqlState {
        case "23505": kind = .unique
        case "23502": kind = .notNull
        case "23503": kind = .foreignKey
        case "23514": kind = .check
        default: return nil
        }
        var columns = column.map { [$0] } ?? []
        // A unique violation names no column, but its detail lists the key: "Key (a, b)=(1, 2) already exists."
        if kind == .unique, columns.isEmpty, let detail = error.detail, detail.hasPrefix("Key ("),
            let end = detail.range(of: ")=(")
        {
            columns = detail[detail.index(detail.startIndex, offsetBy: 5)..<end.lowerBound]
                .split(separator: ",").map { String($0.drop(while: { $0 == " " })) }
        }
        return ConstraintViolation(
            kind: kind, table: table ?? "", columns: columns, constraint: constraint,
            message: error.detail.map { "\(error.message): \($0)" } ?? error.message, sql: error.sql,
            underlying: error)
    }
}
