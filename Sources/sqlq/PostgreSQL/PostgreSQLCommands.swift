#if PostgreSQL
    import PostgreSQL
    import QueryBuilder
    import SQLite

    /// `tables`, `schema` and `query` on a PostgreSQL server: the commands sqlq runs there so far.
    enum PostgreSQLCommands {
        /// `sqlq tables`: the tables and views of the search path's schemas.
        static func tables(_ url: DatabaseURL, format: OutputFormat?) throws {
            let connection = try PostgreSQLConnection(url)
            defer { connection.close() }
            let rows = try connection.fetchAll(PostgreSQLTable.listSQL)
            let output = OutputStream(fileDescriptor: 1)
            if let format {
                format.write(
                    columns: ["name", "type", "columns"],
                    rows: rows.map { row in [0, 2, 3].map { Cell.Owned.value(row.value(at: $0)) } },
                    to: output, style: .forDescriptor(1))
            } else {
                for row in rows { output.writeLine(row.value(at: 0).cellText) }
            }
            output.flush()
        }

        /// `sqlq schema TABLE`: the columns as SQLite's `schema --format` lists them (position,
        /// name, type, NOT NULL, default, primary key position, generated), then, without
        /// `--format`, the foreign keys and indexes as PostgreSQL prints their definitions.
        static func schema(_ url: DatabaseURL, table name: String, format: OutputFormat?) throws {
            let connection = try PostgreSQLConnection(url)
            defer { connection.close() }
            let table = try PostgreSQLTable(connection, table: name)
            let relation = DatabaseValue.text(table.quotedName)
            let columns = try connection.fetchAll(
                """
                SELECT row_number() OVER (ORDER BY a.attnum) - 1 AS cid, a.attname::text AS name,
                    pg_catalog.format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull::int AS "notnull",
                    CASE WHEN a.attgenerated = '' THEN pg_catalog.pg_get_expr(d.adbin, d.adrelid) END AS dflt_value,
                    coalesce(array_position(pk.conkey, a.attnum), 0) AS pk,
                    CASE a.attgenerated WHEN 's' THEN 'stored' END AS generated
                FROM pg_catalog.pg_attribute AS a
                LEFT JOIN pg_catalog.pg_attrdef AS d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
                LEFT JOIN pg_catalog.pg_constraint AS pk ON pk.conrelid = a.attrelid AND pk.contype = 'p'
                WHERE a.attrelid = $1::regclass AND a.attnum > 0 AND NOT a.attisdropped
                ORDER BY a.attnum
                """, [relation])
            // Everything is read before anything is printed: a lock that stops one read leaves no half a schema.
            var foreignKeys: [Row] = []
            var indexes: [Row] = []
            if format == nil {
                foreignKeys = try connection.fetchAll(
                    """
                    SELECT conname::text, pg_catalog.pg_get_constraintdef(oid) FROM pg_catalog.pg_constraint
                    WHERE conrelid = $1::regclass AND contype = 'f' ORDER BY conname COLLATE "C"
                    """, [relation])
                indexes = try connection.fetchAll(
                    """
                    SELECT pg_catalog.pg_get_indexdef(i.indexrelid) FROM pg_catalog.pg_index AS i
                    JOIN pg_catalog.pg_class AS c ON c.oid = i.indexrelid
                    WHERE i.indrelid = $1::regclass ORDER BY c.relname COLLATE "C"
                    """, [relation])
            }
            let output = OutputStream(fileDescriptor: 1)
            let names = ["cid", "name", "type", "notnull", "dflt_value", "pk", "generated"]
            let rows = columns.map { row in row.values.map { Cell.Owned.value($0) } }
            (format ?? .table).write(columns: names, rows: rows, to: output, style: .forDescriptor(1))
            if !foreignKeys.isEmpty {
                output.writeLine("foreign keys:")
                for row in foreignKeys {
                    output.writeLine("  " + row.value(at: 0).cellText + ": " + row.value(at: 1).cellText)
                }
            }
            if !indexes.isEmpty {
                output.writeLine("indexes:")
                for row in indexes { output.writeLine("  " + row.value(at: 0).cellText + ";") }
            }
            output.flush()
        }

        /// `sqlq query TABLE`: the rows that match, in any format, with their facets, or the
        /// statements and their plans (`--explain`).
        static func query(_ url: DatabaseURL, _ options: QueryOptions) throws {
            try refuseUnavailableOptions(options)
            let connection = try PostgreSQLConnection(url)
            defer { connection.close() }
            let plan = try request(options, on: connection)
            let (selected, rendered) = (plan.selected, plan.rendered)
            // The rows' statement, then each facet's.
            let statements: [(sql: String, arguments: [DatabaseValue])] =
                [(rendered.sql, rendered.arguments)]
                + plan.facets.map { facet in
                    let statement = facet.statement(table: plan.table, filter: plan.filter)
                    return (statement.sql, statement.arguments)
                }
            let output = OutputStream(fileDescriptor: 1)
            defer { output.flush() }
            if options.explain {
                output.write(try PostgreSQLExplain.explanation(connection, statements))
                return
            }
            if options.count {
                let rows = try connection.fetchAll(rendered.sql, rendered.arguments)
                output.writeLine(rows.first?.value(at: 0).cellText ?? "0")
                return
            }
            let json = options.format == .json || options.format == .ndjson
            let style = TextStyle.forDescriptor(1)
            func write(_ rows: [Row]) {
                options.format.write(
                    columns: selected.map(\.name),
                    rows: rows.map { row in
                        selected.indices.map {
                            Self.cell(row.value(at: $0), kind: selected[$0].column.kind, json: json)
                        }
                    },
                    to: output, style: style)
            }
            if plan.facets.isEmpty {
                write(try connection.fetchAll(rendered.sql, rendered.arguments))
                return
            }
            let results = try connection.timeLimited { try connection.fetchAll(inOneSnapshot: statements) }
            let counts = zip(plan.facets, results.dropFirst()).map { $0.counts($1, json: json) }
            FacetWriter.write(counts, format: options.format, to: output, style: style) { write(results[0]) }
        }

        /// A usage error, before connecting, for the query options that PostgreSQL cannot run
        /// yet: `--search` (SQLite's FTS5), and for `watch` `--facet` and `--explain` too.
        static func refuseUnavailableOptions(_ options: QueryOptions, watching: Bool = false) throws {
            for (given, option) in [
                (watching && !options.facets.isEmpty, "--facet"), (watching && options.explain, "--explain"),
                (options.search != nil, "--search"),
            ] where given {
                throw CommandError.usage("\(option) is not available on PostgreSQL yet")
            }
        }

        /// What `query` and `watch` run: the table's rows that the filters match, sorted,
        /// limited, their selected columns each as PostgreSQL's text form, and the facets.
        struct Plan {
            let table: PostgreSQLTable
            let filter: SQLExpression?
            let facets: [PostgreSQLFacet]
            let selected: [PostgreSQLColumnPath]
            let request: QueryInterfaceRequest<Row>
            /// The request's SQL: a count with `--count`.
            let rendered: (sql: String, arguments: [DatabaseValue], unsupported: String?)
        }

        /// The ``Plan`` of `options` on the table they name.
        static func request(_ options: QueryOptions, on connection: PostgreSQLConnection) throws -> Plan {
            let table = try PostgreSQLTable(connection, table: options.table)
            let foreignKeys = PostgreSQLForeignKeys(connection)
            var request = Table(table.name).all()
            var filter: SQLExpression?
            if !options.filters.isEmpty {
                filter = try PostgreSQLFilter.compile(options.filters, table: table, foreignKeys: foreignKeys)
                request = request.filter(filter!)
            }
            let facets = try PostgreSQLFacet.resolve(
                options.facets, size: options.facetSize, table: table, foreignKeys: foreignKeys)
            var orderings: [any SQLOrderingTerm] = []
            for option in options.sort {
                for (term, position) in QueryOptions.terms(option) {
                    let descending = term.hasPrefix("-")
                    let name = descending || term.hasPrefix("+") ? String(term.dropFirst()) : term
                    let path = try Self.column(
                        name, option: "--sort", text: option, position: position + term.count - name.count, table,
                        foreignKeys)
                    orderings.append(descending ? path.compared.desc : path.compared.asc)
                }
            }
            if !orderings.isEmpty { request = request.sort(orderings) }
            var selected: [PostgreSQLColumnPath] = []
            for option in options.columns {
                for (name, position) in QueryOptions.terms(option) {
                    selected.append(
                        try Self.column(name, option: "--columns", text: option, position: position, table, foreignKeys)
                    )
                }
            }
            if selected.isEmpty { selected = table.columns.map { PostgreSQLColumnPath($0, of: table) } }
            // Every value as PostgreSQL's text form, which each format then reads by the
            // column's type: no type is left that cannot be shown.
            request = request.select(
                selected.map { path in
                    // A followed column is named by its dotted name, when PostgreSQL would not
                    // truncate it.
                    let name: [SQLFragment.Segment] =
                        path.name.utf8.count < 64 ? [.sql(" AS "), .foreignIdentifier(path.name)] : []
                    return SQLExpression(
                        SQLFragment(path.expression.fragment.segments + [.sql("::text")] + name), precedence: .atom)
                })
            if options.limit != nil || options.offset != nil {
                // PostgreSQL refuses SQLite's negative "no limit".
                request = request.limit(options.limit ?? Int(Int64.max), offset: options.offset)
            }
            let rendered = try request.rendered(.postgreSQL, count: options.count)
            if let unsupported = rendered.unsupported {
                throw CommandError.usage("\(unsupported) is not available on PostgreSQL")
            }
            return Plan(
                table: table, filter: filter, facets: facets, selected: selected, request: request, rendered: rendered)
        }

        /// The column a `--sort` or `--columns` term names, a dotted name following foreign
        /// keys, or an error pointing at the step that failed.
        private static func column(
            _ name: String, option: String, text: String, position: Int, _ table: PostgreSQLTable,
            _ foreignKeys: PostgreSQLForeignKeys
        ) throws -> PostgreSQLColumnPath {
            guard !name.isEmpty else {
                throw FilterError(
                    reason: .syntax("a column name is missing"), expression: text, position: position, length: 1,
                    option: option)
            }
            return try PostgreSQLColumnPath.resolve(
                name, at: position, in: text, option: option, from: table, foreignKeys: foreignKeys)
        }

        /// A value read as PostgreSQL's text form, as the formats show it: integers as
        /// integers; booleans as `t` and `f` (`true` and `false` in JSON); in JSON, `real`s and
        /// `double precision`s as numbers, and a `numeric` as a number when that number reads
        /// back as the same decimal, else as a string (never rounded); elsewhere numbers as their text form,
        /// unquoted; everything else as its text form.
        static func cell(_ value: DatabaseValue, kind: PostgreSQLTable.Kind, json: Bool) -> Cell.Owned {
            guard case .text(let text) = value else { return .value(value) }
            switch kind {
            case .integer:
                return .value(Int64(text).map(DatabaseValue.integer) ?? value)
            case .boolean:
                return .boolean(text == "true")
            case .float where json:
                return .value(Double(text).map(DatabaseValue.real) ?? value)
            case .numeric where json:
                if let integer = Int64(text) { return .value(.integer(integer)) }
                return .value(TextBytes.exactDouble(text).map(DatabaseValue.real) ?? value)
            case .float, .numeric:
                return .number(text)
            default:
                return .value(value)
            }
        }
    }
#else
    /// Without the `PostgreSQL` trait, sqlq reads SQLite files only, and says so for a URL.
    enum PostgreSQLCommands {
        static func tables(_ url: DatabaseURL, format: OutputFormat?) throws { throw unavailable }
        static func schema(_ url: DatabaseURL, table: String, format: OutputFormat?) throws { throw unavailable }
        static func query(_ url: DatabaseURL, _ options: QueryOptions) throws { throw unavailable }

        private static var unavailable: CommandError {
            .usage("this sqlq was built without the PostgreSQL trait, so it reads SQLite files only")
        }
    }
#endif
