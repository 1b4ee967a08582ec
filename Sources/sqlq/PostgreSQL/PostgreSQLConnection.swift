#if PostgreSQL
    import Dispatch
    import Locking
    import PostgreSQL

    /// One PostgreSQL database for one sqlq command: opened from its URL, with one connection,
    /// and run from the synchronous commands by waiting for each statement.
    struct PostgreSQLConnection {
        let database: PostgreSQLDatabase
        let url: DatabaseURL

        /// Connects, or throws a ``CommandError`` (exit status 1) that names the server and why:
        /// within the URL's `connect_timeout`, never hanging on a server that does not answer.
        init(_ url: DatabaseURL) throws {
            self.url = url
            let configuration = url.configuration
            do {
                database = try Self.wait { try await PostgreSQLDatabase(configuration) }
            } catch let error as PostgreSQLError {
                throw CommandError.failure(
                    "cannot connect to the PostgreSQL server of \(url.description): \(error.message)"
                        + (error.detail.map { " (\($0))" } ?? ""))
            }
        }

        /// Every row of `sql`, with `arguments` bound to `$1`, `$2`…
        func fetchAll(_ sql: String, _ arguments: [DatabaseValue] = []) throws -> [Row] {
            let database = database
            return try Self.wait { try await database.fetchAll(sql, arguments) }
        }

        /// Runs `body` in one transaction: committed when it returns, rolled back when it throws.
        func transaction<T: Sendable>(_ body: @escaping @Sendable (PostgreSQLTransaction) async throws -> T) throws -> T
        {
            let database = database
            return try Self.wait { try await database.transaction(body) }
        }

        /// Closes the connection.
        func close() {
            let database = database
            _ = try? Self.wait { await database.close() }
        }

        /// Runs `body` in a task and blocks this thread (the main thread, which is no thread of
        /// the concurrency pool) until it is done.
        static func wait<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
            let outcome = Lock<Result<T, any Error>?>(nil)
            let done = DispatchSemaphore(value: 0)
            Task {
                let result: Result<T, any Error>
                do { result = .success(try await body()) } catch { result = .failure(error) }
                outcome.withLock { $0 = result }
                done.signal()
            }
            done.wait()
            return try outcome.withLock { $0 }!.get()
        }
    }

    extension DatabaseURL {
        /// The PostgreSQL module's configuration: one connection, TLS as `sslmode` says.
        var configuration: PostgreSQLDatabase.Configuration {
            let address: PostgreSQLDatabase.Configuration.Address =
                switch address {
                case .host(let host, let port): .host(host, port: port)
                case .unixSocket(let directory, let port): .unixSocket(directory: directory, port: port)
                }
            let tls: PostgreSQLDatabase.Configuration.TLS =
                switch sslMode {
                case .disable: .disable
                case .prefer: .prefer
                case .require: .require
                case .verifyFull: .verifyFull()
                }
            return .init(
                address: address, user: user, database: database, password: password,
                connectTimeout: .seconds(connectTimeout), tls: tls, maximumConnections: 1,
                connectionWaitTimeout: .seconds(connectTimeout))
        }
    }
#endif
