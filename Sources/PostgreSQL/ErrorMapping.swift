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
