#if HTTP
    import ArgumentParser
    import Hummingbird
    import LiveHTTP
    import Logging
    import SQLite
    import ServiceLifecycle

    /// `sqlq serve`: the database in a browser, live, and as a JSON, NDJSON, CSV and server-sent
    /// events API, read-only.
    struct ServeCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "serve",
            abstract: "Serve the database to a browser, live, and as JSON, NDJSON, CSV and server-sent events.",
            discussion: """
                Opens the database read-only and serves, on 127.0.0.1 unless --host says otherwise: \
                the tables and views with their row counts, each table's rows with the filter \
                language of query (?where=), sorting (?sort=-due), a column picker (?columns=), \
                facets (foreign keys shown as their parents' labels) and full-text search, and each \
                row with the rows that refer to it. Pages update by themselves when a commit changes \
                what they show. TABLE.json, .ndjson, .csv and .sse give the same view to programs; \
                ?count=false skips counting the matching rows. \
                Prints the URL it listens on; Ctrl-C stops it.

                With --token, it also prints a one-time login URL: a random code, not the token, \
                that logs in one browser once with a session cookie; programs send the token as \
                Authorization: Bearer TOKEN. With --allow-sql, /-/sql runs one read-only SELECT.

                Examples:
                  sqlq serve --db app.sqlite
                  sqlq serve --db app.sqlite --port 0 --token "$(openssl rand -hex 16)"
                  curl 'http://127.0.0.1:8001/items.json?where=priority+>=+4&sort=-due&size=5'
                  sqlq serve --db app.sqlite --allow-sql
                  curl 'http://127.0.0.1:8001/-/sql.json?sql=SELECT+count(*)+FROM+items'
                """)

        @OptionGroup var database: DatabaseOptions

        @Option(help: "The address to listen on; 0.0.0.0 serves every network this machine is on.")
        var host = "127.0.0.1"

        @Option(help: "The port to listen on; 0 lets the system choose one, which is printed.")
        var port = 8001

        @Option(
            help: ArgumentHelp(
                "Require this token as an Authorization: Bearer header, or the session cookie that the printed one-time login URL sets.",
                valueName: "token"))
        var token: String?

        @Flag(
            name: .customLong("allow-sql"),
            help:
                "Serve /-/sql and /-/sql.json, which run one read-only SELECT (given as ?sql=), under --time-limit, at most 1000 rows."
        )
        var allowSQL = false

        @Option(name: .customLong("max-clients"), help: "The most live streams served at once; beyond, 503.")
        var maximumClients = 100

        @Option(
            name: .customLong("time-limit"),
            help: ArgumentHelp("The longest one request's queries may run, in seconds.", valueName: "seconds"))
        var timeLimit = 5.0

        func validate() throws {
            guard (0...65_535).contains(port) else {
                throw ValidationError("--port takes a number from 0 to 65535; \(port) is not one")
            }
            guard maximumClients >= 1 else { throw ValidationError("--max-clients must be at least 1") }
            guard timeLimit > 0, timeLimit <= 3_600 else {
                throw ValidationError("--time-limit takes a number of seconds above 0 and at most 3600")
            }
            // What a cookie's value may hold (RFC 6265), since the token travels as one.
            let refused = Set("\";,\\".utf8)
            if let token,
                token.isEmpty || token.utf8.contains(where: { $0 <= 0x20 || $0 >= 0x7F || refused.contains($0) })
            {
                throw ValidationError(
                    "--token must be printable ASCII with no spaces, quotes, commas, semicolons or backslashes, such as a hex string"
                )
            }
        }

        func run() async throws {
            let connection = try database.open(.read)
            try await ReadOnlyGuard.enforce(on: connection)
            // The demo database lives in memory, in its one connection: there is nothing to pool.
            var readers = [connection]
            if database.path != nil {
                readers = try (0..<ReadConnections.defaultCount).map { _ in try database.open(.read) }
                for reader in readers { try await ReadOnlyGuard.enforce(on: reader) }
            }
            let credentials = token.map(Credentials.init)
            let server = Server(
                connection: connection, reads: ReadConnections(readers), credentials: credentials, allowSQL: allowSQL,
                timeLimit: .milliseconds(Int64(timeLimit * 1000)),
                streams: LiveEventStreams(
                    configuration: .init(maximumClients: maximumClients, encoder: ServeJSON.makeEncoder())))
            var logger = Logger(label: "sqlq.serve")
            logger.logLevel = .warning
            let app = Application(
                router: server.router(),
                configuration: .init(address: .hostname(host, port: port), serverName: "sqlq"),
                onServerRunning: { channel in
                    let port = channel.localAddress?.port ?? 0
                    let output = OutputStream(fileDescriptor: 1)
                    let address = host.contains(":") ? "[\(host)]" : host
                    let url = "http://\(address):\(port)/"
                    output.writeLine("Serving " + url)
                    if let credentials {
                        output.writeLine(
                            "Log in, in one browser (the URL works once): " + url.dropLast() + credentials.loginURL)
                    }
                    output.flush()
                },
                logger: logger)
            let services = ServiceGroup(
                configuration: .init(services: [app], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
            try await services.run()
        }
    }
#endif
