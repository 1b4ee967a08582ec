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

        /// A configuration for `database` as `user` at `address`. A `maximumConnections` below 1
        /// counts as 1.
        public init(
            address: Address, user: String, database: String, password: String? = nil,
            connectTimeout: Duration = .seconds(10), tls: TLS = .prefer, maximumConnections: Int = 10,
            connectionWaitTimeout: Duration = .seconds(10)
        ) {
            self.address = address
            self.user = user
            self.database = database
            self.password = password
            self.connectTimeout = connectTimeout
            self.tls = tls
            self.maximumConnections = max(1, maximumConnections)
            self.connectionWaitTimeout = connectionWaitTimeout
        }

        /// Where the server is, for error messages.
        var serverDescription: String {
            switch address {
            case .unixSocket(let directory, let port): "\(directory)/.s.PGSQL.\(port)"
            case .host(let host, let port): "\(host):\(port)"
            }
        }

        /// PostgresNIO's configuration. Sessions run in UTC, so that `timestamptz` values read
        /// the same whatever the server's default time zone.
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
            configuration.options.additionalStartupParameters = [("TimeZone", "UTC")]
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
