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
                    "cannot connect to the PostgreSQL server of \(url.description): \(Self.reason(error, url))")
            }
        }

        /// Why the connection failed, in the terms of sqlq's URL.
        private static func reason(_ error: PostgreSQLError, _ url: DatabaseURL) -> String {
            switch error.connectionProblem {
            case .passwordRequired:
                let place =
                    switch url.address {
                    case .host(let host, let port): (host.contains(":") ? "[\(host)]" : host) + ":\(port)"
                    case .unixSocket: ""
                    }
                return
                    "the server asks for a password for role \"\(url.user)\", and none was given: put it in the URL "
                    + "(postgresql://\(url.user):PASSWORD@\(place)/\(url.database), with any of : @ / ? # % in it "
                    + "percent-encoded) or in the PGPASSWORD environment variable (sqlq reads no .pgpass file)"
            case .notPostgreSQL:
                return error.message.replacingOccurrences(
                    of: "check that the host and port are the PostgreSQL server's",
                    with: "check the URL's host and port")
            case .noAnswer(let limit):
                return
                    "nothing answered as a PostgreSQL server within connect_timeout (\(limit.components.seconds) s): "
                    + "nothing answers at that address, or what answers is not a PostgreSQL server, or the server is "
                    + "too busy to log in; check the URL's host and port, or wait longer with ?connect_timeout=SECONDS"
            case nil:
                return error.message + (error.detail.map { " (\($0))" } ?? "")
            }
        }

        /// Every row of `sql`, with `arguments` bound to `$1`, `$2`…
        func fetchAll(_ sql: String, _ arguments: [DatabaseValue] = []) throws -> [Row] {
            let database = database
            return try timeLimited { try Self.wait { try await database.fetchAll(sql, arguments) } }
        }

        /// Runs `body` in one transaction: committed when it returns, rolled back when it throws.
        func transaction<T: Sendable>(_ body: @escaping @Sendable (PostgreSQLTransaction) async throws -> T) throws -> T
        {
            let database = database
            return try timeLimited { try Self.wait { try await database.transaction(body) } }
        }

        /// Runs `body`, throwing a ``PostgreSQLTimeLimitError`` for a statement that the URL's
        /// `--timeout` (or the server's `statement_timeout`) ended.
        func timeLimited<T>(_ body: () throws -> T) throws -> T {
            do {
                return try body()
            } catch {
                throw PostgreSQLTimeLimitError(error, timeout: url.timeout) ?? error
            }
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

    /// A statement that PostgreSQL cancelled at a time limit: waiting for another session's lock
    /// longer than `--timeout` (`lock_timeout`, SQLSTATE 55P03), or running longer than the
    /// server's `statement_timeout` (57014). Exit status 1, as SQLite's lock timeout.
    struct PostgreSQLTimeLimitError: Error, CustomStringConvertible {
        var description: String

        /// `error` as a time limit's, or nil when it is no such error.
        init?(_ error: any Error, timeout: Double) {
            guard let error = error as? PostgreSQLError, error.kind == .server else { return nil }
            let sql = error.sql.map { "\n  SQL: \($0)" } ?? ""
            switch error.sqlState {
            case "55P03":
                description =
                    "another session held a lock that this command needs (on a table or rows it reads or writes) for "
                    + "longer than --timeout (\(DatabaseOptions.seconds(timeout)) s), so PostgreSQL cancelled the "
                    + "statement (lock_timeout); try again once that session's transaction has ended "
                    + "(pg_stat_activity and pg_locks show it), or wait longer with --timeout SECONDS" + sql
            case "57014" where error.message.contains("statement timeout"):
                description =
                    "the statement ran for longer than the server's statement_timeout (set for this database or role; "
                    + "SHOW statement_timeout tells it), so PostgreSQL cancelled it; narrow the query with --where "
                    + "or --limit, or ask for a longer statement_timeout" + sql
            case "57014":
                description =
                    "PostgreSQL cancelled the statement: \(error.message) (another session cancelled it)" + sql
            default:
                return nil
            }
        }
    }

    extension DatabaseURL {
        /// The PostgreSQL module's configuration: one connection, TLS as `sslmode` says, locks
        /// waited for at most `--timeout`.
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
            // --timeout is SQLite's busy timeout: how long to wait for another's lock, not how
            // long a statement may run, so it is the sessions' lock_timeout only.
            return .init(
                address: address, user: user, database: database, password: password,
                connectTimeout: .seconds(connectTimeout), tls: tls, maximumConnections: 1,
                connectionWaitTimeout: .seconds(connectTimeout), lockTimeout: .seconds(timeout))
        }
    }
#endif
