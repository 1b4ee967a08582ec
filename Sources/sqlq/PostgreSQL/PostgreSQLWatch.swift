#if PostgreSQL
    import Dispatch
    import Locking
    import PostgreSQL
    import SQLite

    /// `watch` on a PostgreSQL server, and `install-notifications`, which gives its tables the
    /// change notifications it follows.
    ///
    /// The result is a live value of the PostgreSQL module (a `SharedReader` on a
    /// `FetchKeyRequest`), kept current by the notifications of
    /// `installChangeNotifications(on:schema:)`'s triggers: a commit of any process that writes
    /// a table it reads refetches it, and the display draws the result again when it differs.
    enum PostgreSQLWatch {
        /// `sqlq watch TABLE` on PostgreSQL: `query`'s request kept on screen until Ctrl-C.
        /// Refuses, before drawing anything, a table none of whose tables (a view's included)
        /// has change notifications: it would never be redrawn.
        static func watch(_ url: DatabaseURL, _ options: QueryOptions, databaseArguments: [String]) async throws {
            try PostgreSQLCommands.refuseUnavailableOptions(options, watching: true)
            // The connection waits for each statement on its thread: not one of the concurrency pool's.
            let (database, planner) = try await offPool {
                let connection = try PostgreSQLConnection(url)
                do {
                    let plan = try PostgreSQLCommands.request(options, on: connection)
                    try checkNotifications(connection, plan, databaseArguments: databaseArguments)
                    let planner = try WatchPlanner(connection: connection, options: options, plan: plan)
                    return (connection.database, planner)
                } catch {
                    connection.close()
                    throw error
                }
            }
            if try await !database.followsSchemaChanges() {
                OutputStream(fileDescriptor: 2).writeLine(
                    "sqlq: warning: this database's change notifications were installed without the event triggers of "
                        + "schema changes (only a superuser's install adds them): after a change of the table's "
                        + "columns, or the table dropped and created again, watch shows the new table only at its next "
                        + "write; install-notifications as a superuser to follow them")
            }
            let request = WatchRequest(planner: planner, count: options.count)

            let reader = SharedReader<ResultSet>(value: .empty)
            do {
                try await reader.load(.fetch(request, database: database))
            } catch {
                throw PostgreSQLTimeLimitError(error, timeout: url.timeout) ?? error
            }

            let json = options.format == .json || options.format == .ndjson
            let format = options.format
            let counts = options.count
            let timeout = url.timeout
            // Installed before the first draw: a Ctrl-C as soon as a result shows stops the watch.
            let watching = Lock<(task: Task<Void, Never>?, interrupted: Bool)>((nil, false))
            let interrupt = InterruptSignal {
                watching.withLock { state in
                    state.interrupted = true
                    state.task?.cancel()
                }
            }
            let task = Task {
                let display = WatchDisplay(
                    output: OutputStream(fileDescriptor: 1), format: format, counts: counts,
                    cells: { columns in
                        let kinds = planner.kinds(of: columns)
                        return { row in
                            row.indices.map {
                                PostgreSQLCommands.cell(
                                    row[$0], kind: kinds.indices.contains($0) ? kinds[$0] : .other, json: json)
                            }
                        }
                    })
                defer { display.finish() }
                for await _ in WatchCommand.changes(of: reader) {
                    let (result, error) = (reader.wrappedValue, reader.loadError)
                    // The placeholder has no columns, unlike every real result (a count included).
                    if result == .empty && error == nil { continue }
                    display.show(
                        result,
                        error: error.map { PostgreSQLWatch.message(for: $0, timeout: timeout) })
                }
            }
            watching.withLock { state in
                state.task = task
                if state.interrupted { task.cancel() }
            }
            await task.value
            interrupt.cancel()
            // The process exits next, which closes the connections: waiting for the server to
            // see them closed would only delay the exit.
        }

        /// Throws, with the command that installs them, when a table the request reads (as
        /// PostgreSQL's plan resolves it: a view's tables, the parents of dotted paths) has no
        /// change notifications: watch would never see its commits. Tables outside the search
        /// path are named with their schema, as `install-notifications` takes them. Throws too
        /// for a plan that calls a function or reads a foreign table, and for a view that calls a
        /// function not built in: what those read is hidden.
        private static func checkNotifications(
            _ connection: PostgreSQLConnection, _ plan: PostgreSQLCommands.Plan, databaseArguments: [String]
        ) throws {
            let database = connection.database
            let rendered = plan.rendered
            let log = try connection.fetchAll(
                """
                SELECT pg_catalog.to_regclass($1) IS NULL
                    OR (pg_catalog.has_schema_privilege('live_query', 'USAGE')
                        AND pg_catalog.has_table_privilege($1, 'SELECT'))
                """, [.text(PostgreSQLDatabase.readableChangeLog)])
            if log.first?.value(at: 0) != .integer(1) {
                throw CommandError.failure(
                    "role \(PostgreSQLTable.quote(connection.url.user)) may not read the change log, so watch would never "
                        + "see a change: it needs USAGE on the schema live_query and SELECT on "
                        + "\(PostgreSQLDatabase.readableChangeLog), which install-notifications grants to every role; "
                        + "an administrator revoked them")
            }
            let found = try connection.timeLimited {
                try PostgreSQLConnection.wait {
                    try await database.tablesWithoutChangeNotifications(readBy: rendered.sql, rendered.arguments)
                }
            }
            guard let missing = found else {
                throw CommandError.failure(
                    "the plan of this query calls a function or reads a foreign table (a view over one, say), so what it "
                        + "reads cannot be known, and watch could not tell when it changes; watch the tables it reads "
                        + "instead")
            }
            if plan.table.isView,
                let function = try connection.fetchAll(Self.userFunctionSQL, [.text(plan.table.quotedName)]).first
            {
                throw CommandError.failure(
                    "the view \(PostgreSQLTable.quote(plan.table.name)) calls a function that is not built in "
                        + "(\(function.value(at: 0).cellText)), so what it reads cannot be known, and watch could not "
                        + "tell when it changes; watch the tables it reads instead")
            }
            guard !missing.isEmpty else { return }
            var (quoted, names): ([String], [String]) = ([], [])
            for table in missing {
                let qualified = PostgreSQLTable.quote(table.schema) + "." + PostgreSQLTable.quote(table.table)
                let visible = try connection.fetchAll(
                    "SELECT pg_catalog.pg_table_is_visible($1::regclass)", [.text(qualified)])
                if visible.first?.value(at: 0) == .integer(1) {
                    quoted.append(PostgreSQLTable.quote(table.table))
                    names.append(table.table)
                } else {
                    quoted.append(qualified)
                    names.append(table.schema + "." + table.table)
                }
            }
            let command = (["sqlq", "install-notifications"] + names + databaseArguments).map(SearchIndex.shellWord)
            throw CommandError.failure(
                quoted.joined(separator: ", ") + (missing.count == 1 ? " has" : " have")
                    + " no change notifications installed, so watch would never see "
                    + (missing.count == 1 ? "it" : "them") + " change; install them with: "
                    + command.joined(separator: " "))
        }

        /// A function that the view `$1`, or a view it reads (through views, to a bounded depth),
        /// calls and that is not built in: what it reads is hidden from the plan, and a built-in
        /// one (`now()`, `lower()`) reads no table. The dependencies are those of each view's rule.
        private static let userFunctionSQL = """
            WITH RECURSIVE views(oid, depth) AS (
                SELECT c.oid, 0 FROM pg_catalog.pg_class AS c WHERE c.oid = $1::regclass AND c.relkind = 'v'
                UNION
                SELECT d.refobjid, views.depth + 1
                FROM views
                JOIN pg_catalog.pg_rewrite AS r ON r.ev_class = views.oid
                JOIN pg_catalog.pg_depend AS d ON d.classid = 'pg_catalog.pg_rewrite'::regclass AND d.objid = r.oid
                    AND d.refclassid = 'pg_catalog.pg_class'::regclass AND d.refobjid <> views.oid
                JOIN pg_catalog.pg_class AS c ON c.oid = d.refobjid AND c.relkind = 'v'
                WHERE views.depth < 16)
            SELECT d.refobjid::regprocedure::text
            FROM views
            JOIN pg_catalog.pg_rewrite AS r ON r.ev_class = views.oid
            JOIN pg_catalog.pg_depend AS d ON d.classid = 'pg_catalog.pg_rewrite'::regclass AND d.objid = r.oid
                AND d.refclassid = 'pg_catalog.pg_proc'::regclass AND d.refobjid >= 16384
            ORDER BY views.depth, 1
            LIMIT 1
            """

        /// What the status line says for a failed refresh: a time limit's error in sqlq's words,
        /// and the library's advice to call `installChangeNotifications(on:schema:)` as the
        /// sqlq command that does it.
        fileprivate static func message(for error: any Error, timeout: Double) -> String {
            let error = PostgreSQLTimeLimitError(error, timeout: timeout) ?? error
            let api = "install them with installChangeNotifications(on:schema:)"
            guard var failure = error as? PostgreSQLError, var range = failure.message.range(of: api) else {
                return ExitStatus.message(for: error)
            }
            let sqlq = " (sqlq install-notifications)"
            if failure.message[range.upperBound...].hasPrefix(sqlq) {
                range = range.lowerBound..<failure.message.index(range.upperBound, offsetBy: sqlq.count)
            }
            var table = "TABLE"
            if let end = failure.message.range(of: " has no change notifications"),
                let parts = Self.identifiers(failure.message[..<end.lowerBound]), parts.count == 2
            {
                table = SearchIndex.shellWord(parts.joined(separator: "."))
            }
            failure.message.replaceSubrange(range, with: "install them with: sqlq install-notifications " + table)
            return ExitStatus.message(for: failure)
        }

        /// The names of `"schema"."table"`, or nil for text that is not quoted identifiers joined by dots.
        private static func identifiers(_ text: Substring) -> [String]? {
            var parts: [String] = []
            var rest = text
            while true {
                guard rest.first == "\"" else { return nil }
                rest = rest.dropFirst()
                var part = ""
                while true {
                    guard let character = rest.first else { return nil }
                    rest = rest.dropFirst()
                    if character != "\"" {
                        part.append(character)
                    } else if rest.first == "\"" {
                        part.append("\"")
                        rest = rest.dropFirst()
                    } else {
                        break
                    }
                }
                parts.append(part)
                if rest.isEmpty { return parts }
                guard rest.first == "." else { return nil }
                rest = rest.dropFirst()
            }
        }

        /// `sqlq install-notifications TABLE…`: the change notifications of each table, installed
        /// (or installed again) in one transaction per schema.
        static func installNotifications(_ url: DatabaseURL, tables names: [String]) throws {
            let connection = try PostgreSQLConnection(url)
            defer { connection.close() }
            let groups = try Self.tablesBySchema(names, connection)
            let database = connection.database
            try PostgreSQLConnection.wait {
                for group in groups {
                    try await database.installChangeNotifications(on: group.tables, schema: group.schema)
                }
            }
            Self.report("installed change notifications on", groups)
        }

        /// Removes the change notifications of the tables `names`, or with `all` everything
        /// that the installs put in the database.
        static func uninstallNotifications(_ url: DatabaseURL, tables names: [String], all: Bool) throws {
            let connection = try PostgreSQLConnection(url)
            defer { connection.close() }
            let database = connection.database
            if all {
                try PostgreSQLConnection.wait { try await database.uninstallChangeNotifications() }
                OutputStream(fileDescriptor: 1).writeLine(
                    "removed every change notification of the database, and the schema live_query")
                return
            }
            let groups = try Self.tablesBySchema(names, connection)
            try PostgreSQLConnection.wait {
                for group in groups {
                    try await database.uninstallChangeNotifications(on: group.tables, schema: group.schema)
                }
            }
            Self.report("removed the change notifications of", groups)
        }

        /// The tables `names` (each as `watch` finds it), grouped by schema, each once; a view
        /// is refused.
        private static func tablesBySchema(
            _ names: [String], _ connection: PostgreSQLConnection
        ) throws -> [(schema: String, tables: [String])] {
            var schemas: [(schema: String, tables: [String])] = []
            for name in names {
                let table = try Self.table(name, connection)
                if table.isView {
                    throw CommandError.usage(
                        "\(PostgreSQLTable.quote(table.name)) is a view: change notifications go on the tables it reads"
                    )
                }
                if let index = schemas.firstIndex(where: { $0.schema == table.schema }) {
                    if !schemas[index].tables.contains(table.name) { schemas[index].tables.append(table.name) }
                } else {
                    schemas.append((table.schema, [table.name]))
                }
            }
            return schemas
        }

        /// One line per table: `what` and its qualified name.
        private static func report(_ what: String, _ groups: [(schema: String, tables: [String])]) {
            let output = OutputStream(fileDescriptor: 1)
            for group in groups {
                for table in group.tables {
                    output.writeLine(
                        what + " " + PostgreSQLTable.quote(group.schema) + "." + PostgreSQLTable.quote(table))
                }
            }
            output.flush()
        }

        /// The table `name` as `query` finds it in the search path, else, for `schema.table`, that
        /// table of that schema exactly: how `watch` names a table outside the search path.
        private static func table(_ name: String, _ connection: PostgreSQLConnection) throws -> PostgreSQLTable {
            do {
                return try PostgreSQLTable(connection, table: name)
            } catch let error as SchemaError {
                guard let dot = name.firstIndex(of: ".") else { throw error }
                let (schema, table) = (String(name[..<dot]), String(name[name.index(after: dot)...]))
                let found = try connection.fetchAll(
                    """
                    SELECT c.relkind IN ('v', 'm') FROM pg_catalog.pg_class AS c
                    JOIN pg_catalog.pg_namespace AS n ON n.oid = c.relnamespace
                    WHERE n.nspname = $1 AND c.relname = $2 AND c.relkind IN ('r', 'p', 'v', 'm', 'f')
                    """, [.text(schema), .text(table)])
                guard let row = found.first else { throw error }
                return try PostgreSQLTable(
                    connection, schema: schema, name: table, isView: row.value(at: 0) == .integer(1))
            }
        }

        /// Runs `body` on a thread of its own, which may block waiting for the server.
        private static func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
            try await withCheckedThrowingContinuation { continuation in
                DispatchQueue.global().async { continuation.resume(with: Result { try body() }) }
            }
        }
    }

    /// The request of `query`, as a live value fetches it: the selected columns' text forms, or
    /// the count, by the plan of the table's columns as they are now.
    private struct WatchRequest: FetchKeyRequest {
        let planner: WatchPlanner
        let count: Bool

        func fetch(_ db: any SQLConnection) throws -> ResultSet {
            var plan = try planner.current()
            do {
                return try Self.fetch(plan, count: count, db)
            } catch {
                // A table that a dotted name follows may have changed: planned again, once.
                guard let replanned = try planner.replanned(after: plan) else { throw error }
                plan = replanned
            }
            return try Self.fetch(plan, count: count, db)
        }

        private static func fetch(_ plan: WatchPlanner.Planned, count: Bool, _ db: any SQLConnection) throws
            -> ResultSet
        {
            if count { return .count(try plan.request.fetchCount(db)) }
            return ResultSet(columns: plan.columns, rows: try plan.request.fetchAll(db).map(\.values))
        }

        static func == (lhs: Self, rhs: Self) -> Bool { lhs.planner === rhs.planner && lhs.count == rhs.count }
        func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(planner)) }
    }

    /// The plan of one `watch`, made again whenever the watched table's columns (or the table
    /// itself, dropped and created again) change, as SQLite's watch shows a column just added:
    /// the live value's schema change refetches, and its fetch finds the table's catalog changed.
    private final class WatchPlanner: Sendable {
        struct Planned: Sendable {
            let request: QueryInterfaceRequest<Row>
            let columns: [String]
            let kinds: [PostgreSQLTable.Kind]
            /// The table's OID and columns when it was planned.
            let fingerprint: [DatabaseValue]
        }

        /// The watch's own connection: its statements run one at a time, under the state's lock.
        private let connection: PostgreSQLConnection
        private let options: QueryOptions
        private let qualifiedName: String
        private let state: Lock<(plan: Planned, kinds: [[String]: [PostgreSQLTable.Kind]])>

        init(connection: PostgreSQLConnection, options: QueryOptions, plan: PostgreSQLCommands.Plan) throws {
            self.connection = connection
            self.options = options
            qualifiedName = PostgreSQLTable.quote(plan.table.schema) + "." + PostgreSQLTable.quote(plan.table.name)
            let planned = Self.planned(plan, fingerprint: try Self.fingerprint(of: qualifiedName, connection))
            state = Lock((planned, [planned.columns: planned.kinds]))
        }

        /// The plan for the table as it is now.
        func current() throws -> Planned {
            try state.withLock { state in
                let fingerprint = try Self.fingerprint(of: qualifiedName, connection)
                if fingerprint != state.plan.fingerprint { try replan(&state, fingerprint) }
                return state.plan
            }
        }

        /// A new plan, when `plan` is still the current one and planning again gives another
        /// request; nil otherwise.
        func replanned(after plan: Planned) throws -> Planned? {
            try state.withLock { state in
                let before = try plan.request.rendered(.postgreSQL).sql
                if try state.plan.request.rendered(.postgreSQL).sql == before {
                    try replan(&state, try Self.fingerprint(of: qualifiedName, connection))
                }
                return try state.plan.request.rendered(.postgreSQL).sql == before ? nil : state.plan
            }
        }

        /// The kinds of the columns of a result made by one of this watch's plans.
        func kinds(of columns: [String]) -> [PostgreSQLTable.Kind] {
            state.withLock { $0.kinds[columns] ?? [] }
        }

        private func replan(
            _ state: inout (plan: Planned, kinds: [[String]: [PostgreSQLTable.Kind]]), _ fingerprint: [DatabaseValue]
        ) throws {
            let planned = Self.planned(
                try PostgreSQLCommands.request(options, on: connection), fingerprint: fingerprint)
            state.plan = planned
            state.kinds[planned.columns] = planned.kinds
        }

        private static func planned(_ plan: PostgreSQLCommands.Plan, fingerprint: [DatabaseValue]) -> Planned {
            Planned(
                request: plan.request, columns: plan.selected.map(\.name), kinds: plan.selected.map(\.column.kind),
                fingerprint: fingerprint)
        }

        /// The table's OID, and its columns' names, types and collations.
        private static func fingerprint(of table: String, _ connection: PostgreSQLConnection) throws -> [DatabaseValue]
        {
            try connection.fetchAll(
                """
                SELECT pg_catalog.to_regclass($1)::oid::int8,
                    (SELECT pg_catalog.string_agg(
                        a.attname::text || ' ' || a.atttypid::text || ' ' || a.atttypmod::text || ' ' || a.attcollation::text,
                        ',' ORDER BY a.attnum)
                     FROM pg_catalog.pg_attribute AS a
                     WHERE a.attrelid = pg_catalog.to_regclass($1) AND a.attnum > 0 AND NOT a.attisdropped)
                """, [.text(table)]
            ).first?.values ?? []
        }
    }
#else
    /// Without the `PostgreSQL` trait, sqlq reads SQLite files only, and says so for a URL.
    enum PostgreSQLWatch {
        static func watch(_ url: DatabaseURL, _ options: QueryOptions, databaseArguments: [String]) async throws {
            throw unavailable
        }

        static func installNotifications(_ url: DatabaseURL, tables: [String]) throws { throw unavailable }

        static func uninstallNotifications(_ url: DatabaseURL, tables: [String], all: Bool) throws {
            throw unavailable
        }

        private static var unavailable: CommandError {
            .usage("this sqlq was built without the PostgreSQL trait, so it reads SQLite files only")
        }
    }
#endif
