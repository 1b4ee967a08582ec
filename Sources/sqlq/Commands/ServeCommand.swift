#if HTTP
    import ArgumentParser
    import Hummingbird
    import LiveHTTP
    import Logging
    import SQLite
    import ServiceLifecycle

    #if canImport(Glibc)
        import Glibc
    #endif

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

                It answers only requests whose Host header names it (127.0.0.1, localhost, [::1] or \
                --host, with any port), so that a web page of another domain cannot read it \
                through DNS rebinding; --allow-host adds a name, others get 421.

                With a token (--token, --token-file PATH whose first line is the token, or the \
                SQLQ_TOKEN environment variable, which other users cannot read from the process \
                list as they can a command line), it also prints a one-time login URL: a random \
                code, not the token, that logs in one browser once with a session cookie; \
                programs send the token as Authorization: Bearer TOKEN. With --allow-sql, /-/sql \
                runs one read-only SELECT.

                Examples:
                  sqlq serve --db app.sqlite
                  SQLQ_TOKEN="$(openssl rand -hex 16)" sqlq serve --db app.sqlite --port 0
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
            name: .customLong("allow-host"),
            help: ArgumentHelp(
                "Answer requests whose Host header gives this name too (repeatable); by default only 127.0.0.1, localhost, [::1] and --host are answered, others get 421.",
                valueName: "name"))
        var allowedHosts: [String] = []

        @Option(
            help: ArgumentHelp(
                "Require this token as an Authorization: Bearer header, or the session cookie that the printed one-time login URL sets. Other users can see a command line: prefer --token-file or SQLQ_TOKEN.",
                valueName: "token"))
        var token: String?

        @Option(
            name: .customLong("token-file"),
            help: ArgumentHelp("Read --token from the first line of this file.", valueName: "path"))
        var tokenFile: String?

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
            help: ArgumentHelp(
                "The longest one request's queries may run, in seconds; they stop sooner if its client goes.",
                valueName: "seconds"))
        var timeLimit = 5.0

        @Option(
            name: .customLong("wait-limit"),
            help: ArgumentHelp(
                "The longest a request waits for a free database connection while every one is busy, in seconds; beyond, 503 with Retry-After.",
                valueName: "seconds"))
        var waitLimit = 2.0

        func validate() throws {
            guard (0...65_535).contains(port) else {
                throw ValidationError("--port takes a number from 0 to 65535; \(port) is not one")
            }
            guard maximumClients >= 1 else { throw ValidationError("--max-clients must be at least 1") }
            guard timeLimit > 0, timeLimit <= 3_600 else {
                throw ValidationError("--time-limit takes a number of seconds above 0 and at most 3600")
            }
            guard waitLimit > 0, waitLimit <= 3_600 else {
                throw ValidationError("--wait-limit takes a number of seconds above 0 and at most 3600")
            }
            for name in allowedHosts where name.isEmpty || name.contains(where: { $0 == "/" || $0.isWhitespace }) {
                throw ValidationError(
                    "--allow-host takes a host name or address, such as my-laptop.local; \"\(name)\" is not one")
            }
            if token != nil, tokenFile != nil {
                throw ValidationError("give the token once: --token or --token-file, not both")
            }
        }

        /// The token of `--token`, `--token-file` or else `SQLQ_TOKEN`, or nil for none; read once,
        /// by `run`, since the file may be a pipe.
        func resolvedToken() throws -> String? {
            let given: String
            let source: String
            if let token {
                (given, source) = (token, "--token")
            } else if let tokenFile {
                let bytes: [UInt8]
                do {
                    let descriptor = try ImportCommand.open(tokenFile)
                    defer { close(descriptor) }
                    bytes = try ImportCommand.contents(of: descriptor, path: tokenFile)
                } catch {
                    throw ValidationError("--token-file: \(ExitStatus.message(for: error))")
                }
                var line =
                    bytes.split(separator: UInt8(ascii: "\n"), maxSplits: 1, omittingEmptySubsequences: false)
                    .first ?? []
                if line.last == UInt8(ascii: "\r") { line.removeLast() }
                (given, source) = (String(decoding: line, as: UTF8.self), "the first line of --token-file \(tokenFile)")
            } else if let variable = getenv("SQLQ_TOKEN") {
                (given, source) = (String(cString: variable), "SQLQ_TOKEN")
            } else {
                return nil
            }
            // What a cookie's value may hold (RFC 6265), since the token travels as one.
            let refused = Set("\";,\\".utf8)
            guard !given.isEmpty || token != nil else {
                throw ValidationError("\(source) is empty: give a token, such as one of openssl rand -hex 16")
            }
            guard !given.isEmpty, !given.utf8.contains(where: { $0 <= 0x20 || $0 >= 0x7F || refused.contains($0) })
            else {
                throw ValidationError(
                    "\(source) must be printable ASCII with no spaces, quotes, commas, semicolons or backslashes, such as a hex string"
                )
            }
            return given
        }

        func run() async throws {
            let credentials = try resolvedToken().map(Credentials.init)
            let database = self.database
            let reads = ReadConnections.defaultCount
            let waitLimit = Duration.milliseconds(Int64(waitLimit * 1000))
            let file = try await ServedFile(path: database.path) {
                let connection = try database.open(.read)
                try await ReadOnlyGuard.enforce(on: connection)
                // The demo database lives in memory, in its one connection: there is nothing to pool.
                var readers = [connection]
                if database.path != nil {
                    readers = try (0..<reads).map { _ in try database.open(.read) }
                    for reader in readers { try await ReadOnlyGuard.enforce(on: reader) }
                }
                return ServedFile.Connections(
                    streams: connection, reads: ReadConnections(readers, waitLimit: waitLimit))
            }
            let server = Server(
                file: file,
                credentials: credentials,
                hosts: AllowedHosts(host: host, allowed: allowedHosts), allowSQL: allowSQL,
                timeLimit: .milliseconds(Int64(timeLimit * 1000)),
                streams: LiveEventStreams(
                    configuration: .init(maximumClients: maximumClients, encoder: ServeJSON.makeEncoder())))
            var logger = Logger(label: "sqlq.serve")
            logger.logLevel = .warning
            let app = Application(
                router: server.router(),
                server: .http1(
                    configuration: .init(
                        additionalChannelHandlers: [ParseFailureAnswer(), ClientDepartureHandler()],
                        httpDecoderConfiguration: .init(
                            maxHeaderFieldSize: ParseFailureAnswer.maximumHeadLength,
                            maxHeaderListSize: ParseFailureAnswer.maximumHeadLength))),
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
