import PostgresNIO

extension PostgreSQLDatabase {
    /// Where the server is and who connects: a unix socket folder, or a host and port.
    public struct Configuration: Sendable {
        /// How to reach the server.
        public enum Address: Sendable, Hashable {
            /// The folder holding the server's socket file (`.s.PGSQL.<port>`), and that port.
            case unixSocket(directory: String, port: Int)
            /// A host name or IP address and a TCP port. TLS is used when the server offers it.
            case host(String, port: Int)
        }

        /// How to reach the server.
        public var address: Address
        /// The role to connect as.
        public var user: String
        /// The database to open.
        public var database: String
        /// The password, for servers that ask for one.
        public var password: String?
        /// How long connecting may take before it fails, rather than waiting on a server that
        /// does not answer.
        public var connectTimeout: Duration

        /// A configuration for `database` as `user` at `address`.
        public init(
            address: Address, user: String, database: String, password: String? = nil,
            connectTimeout: Duration = .seconds(10)
        ) {
            self.address = address
            self.user = user
            self.database = database
            self.password = password
            self.connectTimeout = connectTimeout
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
                    tls: .prefer(try NIOSSLContext(configuration: .makeClientConfiguration())))
            }
            configuration.options.connectTimeout = .nanoseconds(
                connectTimeout.components.seconds * 1_000_000_000 + connectTimeout.components.attoseconds
                    / 1_000_000_000)
            configuration.options.additionalStartupParameters = [("TimeZone", "UTC")]
            return configuration
        }
    }
}
