import PostgresNIO

extension PostgreSQLDatabase {
    /// Where the server is and who connects: a unix socket folder, or a host and port; how
    /// TLS is used; and the size of the connection pool.
    public struct Configuration: Sendable {
        /// How to reach the server.
        public enum Address: Sendable, Hashable {
            /// The folder holding the server's socket file (`.s.PGSQL.<port>`), and that port.
            /// TLS is never used on a unix socket, whatever ``Configuration/tls`` says.
            case unixSocket(directory: String, port: Int)
            /// A host name or IP address and a TCP port, with TLS as ``Configuration/tls`` says.
            case host(String, port: Int)
        }

        /// Whether connections to a ``Address/host(_:port:)`` are encrypted, and whether the
        /// server's certificate is checked: libpq's `sslmode` values of the same names.
        public enum TLS: Sendable, Hashable {
            /// Never: the connection is not encrypted.
            case disable
            /// Encrypted when the server offers TLS, else not; the certificate is not checked.
            case prefer
            /// Encrypted, or the connection fails; the certificate is not checked.
            case require
            /// Encrypted, with the server's certificate chain checked against the certificate
            /// authorities of the PEM file `caFile` (the system's when nil), and its name against
            /// the host name of the address (or its IP address).
            case verifyFull(caFile: String? = nil)
        }

        /// How to reach the server.
        public var address: Address
        /// The role to connect as.
        public var user: String
        /// The database to open.
        public var database: String
        /// The password, for servers that ask for one.
        public var password: String?
        /// How long opening a connection (TCP, TLS and login) may take before it fails with
        /// ``PostgreSQLError/Kind/connectionFailed``, rather than waiting on a server that does
        /// not answer. A timeout beyond 68 years, or `.seconds(.max)`, waits 68 years.
        public var connectTimeout: Duration
        /// TLS for host addresses; unix sockets ignore it.
        public var tls: TLS
        /// The most connections the database keeps open at once: statements and transactions
        /// beyond it wait for a free one. 10 by default.
        public var maximumConnections: Int
        /// How long a statement or transaction waits for a free connection when all
        /// ``maximumConnections`` are in use, before it fails with
        /// ``PostgreSQLError/Kind/poolExhausted``. 10 seconds by default; at most 68 years.
        public var connectionWaitTimeout: Duration
        /// How long a statement may wait for a lock that another session holds (a table a
        /// migration locked, a row another transaction writes) before it fails with
        /// ``PostgreSQLError`` SQLSTATE `55P03`: the sessions' `lock_timeout`. nil, the default,
        /// keeps the server's setting (no limit unless the database or role sets one). Counted in
        /// milliseconds, rounded up: at least 1 ms, at most about 24 days.
        public var lockTimeout: Duration?
        /// How long one statement may run before the server cancels it with ``PostgreSQLError``
        /// SQLSTATE `57014`: the sessions' `statement_timeout`. nil, the default, keeps the
        /// server's setting. Counted as ``lockTimeout`` is.
        public var statementTimeout: Duration?

        /// A configuration for `database` as `user` at `address`. A `maximumConnections` below 1
        /// counts as 1.
        public init(
            address: Address, user: String, database: String, password: String? = nil,
            connectTimeout: Duration = .seconds(10), tls: TLS = .prefer, maximumConnections: Int = 10,
            connectionWaitTimeout: Duration = .seconds(10), lockTimeout: Duration? = nil,
            statementTimeout: Duration? = nil
        ) {
            self.address = address
            self.user = user
            self.database = database
            self.password = password
            self.connectTimeout = connectTimeout
            self.tls = tls
            self.maximumConnections = max(1, maximumConnections)
            self.connectionWaitTimeout = connectionWaitTimeout
            self.lockTimeout = lockTimeout
            self.statementTimeout = statementTimeout
        }

        /// Where the server is, for error messages.
        var serverDescription: String {
            switch address {
            case .unixSocket(let directory, let port): "\(directory)/.s.PGSQL.\(port)"
            case .host(let host, let port): "\(host):\(port)"
            }
        }

        /// The session settings that change how values print as text, how literals and input
        /// read, or how values compare, at PostgreSQL's defaults but for two: sent in the
        /// startup packet, which overrides what `ALTER DATABASE … SET`, `ALTER ROLE … SET` and
        /// the server's configuration say, so that every session (the pool's, a live value's, a
        /// listener's) reads the same values from any server. UTC, so that `timestamptz` values
        /// read the same whatever the server's time zone; 3 extra float digits, so that a
        /// `double precision` prints as the shortest text that reads back as the same double
        /// (`0.30000000000000004`, not `0.3`); standard strings, so that a backslash in a
        /// literal (`ESCAPE '\'`) is a backslash. `lc_monetary` is left alone: it gives `money`
        /// its number of decimals, so another value would misread the stored amounts.
        static let pinnedSettings: [(String, String)] = [
            ("TimeZone", "UTC"),
            ("DateStyle", "ISO, MDY"),
            ("IntervalStyle", "postgres"),
            ("extra_float_digits", "3"),
            ("bytea_output", "hex"),
            ("standard_conforming_strings", "on"),
            ("client_encoding", "UTF8"),
            ("xmloption", "content"),
            ("array_nulls", "on"),
            ("transform_null_equals", "off"),
            ("timezone_abbreviations", "Default"),
        ]

        /// The startup parameters of every session: ``pinnedSettings``, then the time limits
        /// that are set.
        var startupParameters: [(String, String)] {
            var parameters = Self.pinnedSettings
            if let lockTimeout { parameters.append(("lock_timeout", "\(lockTimeout.settingMilliseconds)")) }
            if let statementTimeout {
                parameters.append(("statement_timeout", "\(statementTimeout.settingMilliseconds)"))
            }
            return parameters
        }

        /// PostgresNIO's configuration, with ``startupParameters``.
        func connectionConfiguration() throws -> PostgresConnection.Configuration {
            var configuration: PostgresConnection.Configuration
            switch address {
            case .unixSocket(let directory, let port):
                configuration = .init(
                    unixSocketPath: "\(directory)/.s.PGSQL.\(port)", username: user, password: password,
                    database: database)
            case .host(let host, let port):
                configuration = .init(
                    host: host, port: port, username: user, password: password, database: database,
                    tls: try postgresTLS())
            }
            configuration.options.connectTimeout = .nanoseconds(connectTimeout.timerNanoseconds)
            configuration.options.additionalStartupParameters = startupParameters
            return configuration
        }

        private func postgresTLS() throws -> PostgresConnection.Configuration.TLS {
            var client = TLSConfiguration.makeClientConfiguration()
            switch tls {
            case .disable:
                return .disable
            case .prefer:
                client.certificateVerification = .none
                return .prefer(try NIOSSLContext(configuration: client))
            case .require:
                client.certificateVerification = .none
                return .require(try NIOSSLContext(configuration: client))
            case .verifyFull(let caFile):
                client.certificateVerification = .fullVerification
                if let caFile { client.trustRoots = .file(caFile) }
                do {
                    return .require(try NIOSSLContext(configuration: client))
                } catch {
                    throw PostgreSQLError(
                        kind: .connectionFailed,
                        message:
                            "cannot load the trusted certificates \(caFile.map { "of \($0)" } ?? "of the system") "
                            + "for TLS verifyFull: \(error)")
                }
            }
        }
    }
}

extension Duration {
    /// This duration as a time-limit setting's whole milliseconds, rounded up: at least 1, since
    /// 0 turns the limit off, and at most the setting's largest, `Int32.max` (about 24 days).
    var settingMilliseconds: Int64 {
        let maximum = Int64(Int32.max)
        let (seconds, attoseconds) = components
        guard self > .zero else { return 1 }
        guard seconds < maximum / 1000 else { return maximum }
        let milliseconds = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Swift.min(Swift.max(milliseconds, 1), maximum)
    }
}
