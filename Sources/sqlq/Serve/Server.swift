#if HTTP
    import HTTPTypes
    import Hummingbird
    import LiveHTTP
    import SQLite
    import SharingSQLite

    /// The routes of `sqlq serve`, all GET:
    ///
    /// - `/`: the tables and views with their row counts; `/-/database.json` and `.sse` give it
    ///   to programs;
    /// - `/TABLE` (`/TABLE.html` for a name with a dot): a page of the table's rows, the view in
    ///   the query string (see ``ViewParameters``); `.json`, `.ndjson`, `.csv` and `.sse` (or
    ///   `Accept: text/event-stream`) for the same view;
    /// - `/TABLE/ROWID`: one row and the rows that refer to it; `.json` and `.sse` likewise;
    /// - `/-/sql?sql=SELECT…` and `/-/sql.json`, with `--allow-sql` only: one read-only statement;
    /// - `/-/login?code=CODE`, with `--token`: the one-time login URL (see ``TokenCheck``);
    /// - `/-/stats.json`: the live streams, and the readers they share (see ``ServerStats``);
    /// - `/-/sqlq.css` and `/-/sqlq.js`.
    ///
    /// Every answer to a bad request is 400 with a message (404 for an unknown table or a missing
    /// row, 403 for `/-/sql` without `--allow-sql`): an HTML page for pages, `{"error": …}` for
    /// JSON, plain text for the other formats.
    struct Server: Sendable {
        /// The database file and its connections: those of the live streams, whose readers the
        /// live engine keeps per connection, and those every other request reads through.
        let file: ServedFile
        /// `--token`'s, checked on every request; nil lets every request in.
        let credentials: Credentials?
        /// The names a request's `Host` may give (`--host`, `--allow-host`).
        let hosts: AllowedHosts
        /// Whether `/-/sql` runs SQL (`--allow-sql`).
        let allowSQL: Bool
        let timeLimit: Duration
        let streams: LiveEventStreams

        /// The formats a path can end with.
        enum Format: String {
            case html, json, ndjson, csv, sse

            var contentType: String {
                switch self {
                case .html: "text/html; charset=utf-8"
                case .json: "application/json"
                case .ndjson: "application/x-ndjson"
                case .csv: "text/csv; charset=utf-8"
                case .sse: "text/event-stream"
                }
            }
        }

        func router() -> Router<ServeRequestContext> {
            let router = Router(context: ServeRequestContext.self)
            router.add(middleware: ClientDepartureScope())
            router.add(middleware: SecurityHeaders())
            router.add(middleware: RequestGuard(hosts: hosts))
            if let credentials { router.add(middleware: TokenCheck(credentials: credentials)) }
            router.get("/") { request, _ in await answer(request) }
            router.get("**") { request, _ in await answer(request) }
            return router
        }

        /// The answer to any GET: never a thrown error, except the streams' own 503 beyond the cap.
        func answer(_ request: Request) async -> Response {
            var format = Format.html
            do {
                let segments = try request.uri.path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
                    .map { try QueryString.decodeComponent($0) }
                var last = segments.last ?? ""
                if let dot = last.lastIndex(of: "."),
                    let given = Format(rawValue: String(last[last.index(after: dot)...]))
                {
                    format = given
                    last = String(last[..<dot])
                } else if request.headers[.accept]?.contains("text/event-stream") == true {
                    format = .sse
                }
                let parameters = try QueryString.decode(request.uri.query)
                switch (segments.count, segments.first ?? "") {
                case (1, "") where format == .html:
                    try Self.refuseParameters(parameters)
                    return try await databasePage(request, format: .html)
                case (2, "-"):
                    switch (segments[1], format) {
                    case ("sqlq.css", _): return asset(Assets.css, "text/css; charset=utf-8")
                    case ("sqlq.js", _): return asset(Assets.javaScript, "text/javascript; charset=utf-8")
                    case ("database.json", .json), ("database.sse", .sse):
                        try Self.refuseParameters(parameters)
                        return try await databasePage(request, format: format)
                    case ("stats.json", .json):
                        return try json(ServerStats(streams: streams, reads: file.latest.value.reads))
                    case ("sql", .html), ("sql.json", .json):
                        return try await sqlPage(parameters, format: format)
                    default: break
                    }
                case (1, _) where !last.isEmpty:
                    return try await tablePage(
                        request, table: last, parameters: try ViewParameters(parameters), format: format)
                case (2, _) where !segments[0].isEmpty:
                    guard parameters.isEmpty else {
                        throw ServeError(.badRequest, "a row's page takes no parameters")
                    }
                    return try await rowPage(request, table: segments[0], rowID: last, format: format)
                default: break
                }
                throw ServeError(
                    .badRequest,
                    "no page has the path \(request.uri.path): the pages are /, /TABLE and /TABLE/ROWID, "
                        + "with .json, .ndjson, .csv or .sse for the data")
            } catch let error as HTTPError where error.status == .serviceUnavailable {
                // The streams' cap, with its Retry-After.
                var response = failure(
                    ServeError(.serviceUnavailable, error.body ?? "too many clients"), format: format)
                response.headers.append(contentsOf: error.headers)
                return response
            } catch {
                return failure(ServeError.from(error), format: format)
            }
        }

        /// The database page's refusal of any parameter, alike in every format.
        private static func refuseParameters(_ parameters: [(name: String, value: String)]) throws {
            guard let first = parameters.first else { return }
            throw ServeError(
                .badRequest, "the database page takes no parameters; \"\(first.name)\" is not one: remove it")
        }

        // MARK: Pages

        private func databasePage(_ request: Request, format: Format) async throws -> Response {
            let connections = try await file.current()
            let key = DatabaseRequest(timeLimit: timeLimit)
            switch format {
            case .sse: return try streams.response(streaming: .fetch(key, database: connections.streams), for: request)
            case .json: return try json(try await connections.reads.read { db in try key.fetch(db) })
            default:
                return html(PageRenderer.databasePage(try await connections.reads.read { db in try key.fetch(db) }))
            }
        }

        private func tablePage(
            _ request: Request, table: String, parameters: ViewParameters, format: Format
        ) async throws -> Response {
            let started = ContinuousClock.now
            let connections = try await file.current()
            let timeLimit = self.timeLimit
            if format == .html {
                // A bad view is shown in the page, its message under the filter form.
                let (view, schema, searchable, page, error) = try await connections.reads.read {
                    [views = connections.views] db -> (TableViewRequest?, TableSchema, Bool, TablePage?, ServeError?) in
                    let schema = try TableSchema(db, table: table)
                    let searchable = try SearchIndex.find(for: schema.name, in: db) != nil
                    do {
                        let view = try views.view(table: table, parameters: parameters, db: db, timeLimit: timeLimit)
                        return (view, schema, searchable, try view.fetchRows(db), nil)
                    } catch {
                        return (nil, schema, searchable, nil, ServeError.from(error))
                    }
                }
                guard let view, let page, view.hasFacets else {
                    let body = PageRenderer.tablePage(
                        table: view?.table ?? table, parameters: parameters, request: view, page: page,
                        error: error?.message, searchable: searchable, tableColumns: schema.columns.map(\.name))
                    return html(body, status: error?.status ?? .ok)
                }
                // The rows and the count go out at once; the facets, which group every matching
                // row, follow as they are counted, within what is left of the time limit.
                let start = PageRenderer.tablePageStart(
                    table: view.table, parameters: parameters, request: view, page: page, error: nil,
                    searchable: searchable, tableColumns: schema.columns.map(\.name))
                let reads = connections.reads
                // The body is written after this request's handler returns, outside its scope.
                let departure = ClientDeparture.current
                let remaining = timeLimit - (ContinuousClock.now - started)
                var headers = HTTPFields()
                headers[.contentType] = Format.html.contentType
                headers[.cacheControl] = "no-store"
                return Response(
                    status: .ok, headers: headers,
                    body: ResponseBody { writer in
                        try await writer.write(ByteBufferAllocator().buffer(string: start))
                        let end: String
                        do {
                            let complete = try await ClientDeparture.$current.withValue(departure) {
                                try await reads.read { db in
                                    try view.fetchFacets(for: page, db, timeLimit: max(remaining, .milliseconds(1)))
                                }
                            }
                            end = PageRenderer.tablePageEnd(
                                table: view.table, parameters: parameters, request: view, page: complete)
                        } catch {
                            end = PageRenderer.tablePageEnd(facetError: ServeError.from(error).message)
                        }
                        try await writer.write(ByteBufferAllocator().buffer(string: end))
                        try await writer.finish(nil)
                    })
            }
            if format == .sse {
                let view = try await connections.reads.read { [views = connections.views] db in
                    try views.view(table: table, parameters: parameters, db: db, timeLimit: timeLimit)
                }
                return try streams.response(streaming: .fetch(view, database: connections.streams), for: request)
            }
            let page = try await connections.reads.read { [views = connections.views] db in
                try views.view(table: table, parameters: parameters, db: db, timeLimit: timeLimit).fetch(db)
            }
            switch format {
            case .json: return try json(page)
            case .ndjson: return data(try RowsEncoding.ndjson(page), format: .ndjson)
            default: return data(RowsEncoding.csv(page), format: .csv)
            }
        }

        private func rowPage(_ request: Request, table: String, rowID: String, format: Format) async throws -> Response
        {
            let connections = try await file.current()
            let timeLimit = self.timeLimit
            let key = try await connections.reads.read { db in
                try RowRequest(table: table, rowID: rowID, db: db, timeLimit: timeLimit)
            }
            // A stream follows a row that may come (back); a page of a row that is not there is 404.
            if format == .sse {
                return try streams.response(streaming: .fetch(key, database: connections.streams), for: request)
            }
            guard format == .json || format == .html else {
                throw ServeError(.badRequest, "a row is served as HTML, .json or .sse, not .\(format.rawValue)")
            }
            let page = try await connections.reads.read { db in try key.fetch(db) }
            guard page.row != nil else {
                throw ServeError(.notFound, "\(key.table) has no row with rowid \(key.rowID)")
            }
            return format == .json ? try json(page) : html(PageRenderer.rowPage(page, request: key))
        }

        /// `--allow-sql`'s page: a form, and the rows of the one read-only statement `sql=` holds.
        private func sqlPage(_ parameters: [(name: String, value: String)], format: Format) async throws -> Response {
            guard allowSQL else {
                throw ServeError(
                    .forbidden,
                    "/-/sql is off: start sqlq serve with --allow-sql to run read-only SELECT statements here")
            }
            var sql: String?
            for (name, value) in parameters {
                guard name == "sql" else {
                    throw ServeError(.badRequest, "unknown parameter \"\(name)\"; /-/sql takes sql= only")
                }
                guard sql == nil else {
                    throw ServeError(.badRequest, "sql= is given more than once; give one statement in one sql=")
                }
                sql = value
            }
            let text = sql ?? ""
            let timeLimit = self.timeLimit
            let run = { @Sendable in
                try await file.current().reads.read { db in try ReadOnlySQL.run(text, db: db, timeLimit: timeLimit) }
            }
            guard format == .html else {
                guard !text.allSatisfy(\.isWhitespace) else {
                    throw ServeError(.badRequest, "give the SQL to run in sql=, such as /-/sql.json?sql=SELECT+1")
                }
                return try json(try await run())
            }
            if text.allSatisfy(\.isWhitespace) { return html(PageRenderer.sqlPage(sql: text, result: nil, error: nil)) }
            do {
                return html(PageRenderer.sqlPage(sql: text, result: try await run(), error: nil))
            } catch {
                let error = ServeError.from(error)
                return html(PageRenderer.sqlPage(sql: text, result: nil, error: error.message), status: error.status)
            }
        }

        // MARK: Answers

        private func html(_ body: String, status: HTTPResponse.Status = .ok) -> Response {
            data(Array(body.utf8), format: .html, status: status)
        }

        private func json(_ value: some Encodable) throws -> Response {
            var bytes = Array(try ServeJSON.makeEncoder().encode(value))
            bytes.append(UInt8(ascii: "\n"))
            return data(bytes, format: .json)
        }

        private func asset(_ text: String, _ contentType: String) -> Response {
            var headers = HTTPFields()
            headers[.contentType] = contentType
            headers[.cacheControl] = "no-cache"
            return Response(
                status: .ok, headers: headers,
                body: ResponseBody(byteBuffer: ByteBufferAllocator().buffer(string: text)))
        }

        private func data(_ bytes: [UInt8], format: Format, status: HTTPResponse.Status = .ok) -> Response {
            var headers = HTTPFields()
            headers[.contentType] = format.contentType
            headers[.cacheControl] = "no-store"
            return Response(
                status: status, headers: headers,
                body: ResponseBody(byteBuffer: ByteBufferAllocator().buffer(bytes: bytes)))
        }

        /// The answer to a bad request, in the form the request asked for.
        private func failure(_ error: ServeError, format: Format) -> Response {
            var response = failureBody(error, format: format)
            response.headers.append(contentsOf: error.headers)
            return response
        }

        private func failureBody(_ error: ServeError, format: Format) -> Response {
            switch format {
            case .html:
                return html(PageRenderer.errorPage(error), status: error.status)
            case .json, .ndjson:
                let body = (try? ServeJSON.makeEncoder().encode(["error": error.message])).map(Array.init) ?? []
                return data(body + [UInt8(ascii: "\n")], format: .json, status: error.status)
            case .csv, .sse:
                var headers = HTTPFields()
                headers[.contentType] = "text/plain; charset=utf-8"
                return Response(
                    status: error.status, headers: headers,
                    body: ResponseBody(byteBuffer: ByteBufferAllocator().buffer(string: error.message + "\n")))
            }
        }
    }
#endif
