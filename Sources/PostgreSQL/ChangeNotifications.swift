import QueryBuilder
import SQLCore
import SQLRecords

extension PostgreSQLDatabase {
    /// The channel that wakes the listeners of live values: the change triggers of
    /// ``changeNotificationSQL(on:schema:)`` notify it with an empty payload when the change log
    /// (``changeLog``) has news, and the event triggers of ``schemaChangeNotificationSQL``
    /// notify it of a schema change.
    ///
    /// Listeners see each change as its table's schema and name, `"schema"."table"` (each part
    /// in double quotes, its double quotes doubled), optionally followed by a space and changed
    /// rows as JSON: `{"o":[…],"n":[…]}`, the rows before (`o`) and after (`n`) the change, each
    /// a JSON object keyed by column name (`row_to_json`). A bare name means that any row of the
    /// table may have changed. The log records a table by its OID, which listeners read as its
    /// name; earlier versions' triggers recorded the name itself, or sent it on the channel, and
    /// listeners still read both.
    public static let changeChannel = "live_query_changes"

    /// The table where the change triggers record each changed row, in the schema `live_query`:
    /// unlogged (a crash empties it, and ends every listening connection anyway), read by every
    /// listening connection, and pruned by them of the records that every listener has been
    /// able to read for a minute.
    public static let changeLog = "live_query.changes"

    /// The most rows a statement may change, before and after, for its change to carry them:
    /// past it, any row of the table may have changed.
    public static let changeRowLimit = 100

    /// The trigger function every change trigger runs.
    static let changeFunction = "live_query_notify_change"

    /// The transaction-level advisory lock whose holder wakes the listeners: its two-key form,
    /// a space apart from the one-key locks that applications take most.
    static let wakeLock = (Int32(0x6C69_7665), Int32(0x7175_6572))

    /// The change triggers of each table: PostgreSQL allows transition tables only on a trigger
    /// of one event.
    static let changeTriggers = [
        (name: "live_query_changes_insert", event: "INSERT", referencing: " REFERENCING NEW TABLE AS live_query_new"),
        (
            name: "live_query_changes_update", event: "UPDATE",
            referencing: " REFERENCING OLD TABLE AS live_query_old NEW TABLE AS live_query_new"
        ),
        (name: "live_query_changes_delete", event: "DELETE", referencing: " REFERENCING OLD TABLE AS live_query_old"),
        (name: "live_query_changes_truncate", event: "TRUNCATE", referencing: ""),
    ]

    /// The one trigger of every event that earlier versions installed, named after the channel.
    static let formerChangeTrigger = changeChannel

    /// The event trigger function of schema changes, and its two event triggers.
    static let schemaChangeFunction = "live_query_notify_schema_change"
    static let schemaChangeTriggers = [
        "live_query_schema_changes": "ddl_command_end", "live_query_schema_drops": "sql_drop",
    ]

    /// The payload of a schema change: never that of a table, which starts with a double quote.
    static let schemaChangePayload = "schema"

    /// SQL that installs, idempotently, the change log (``changeLog``), a trigger function and,
    /// on each of `tables`, four statement-level triggers (`AFTER INSERT`, `AFTER UPDATE`,
    /// `AFTER DELETE`, each with its transition tables, and `AFTER TRUNCATE`) that record each
    /// statement's change in the log: a record per changed row, before and after, each the table
    /// and the row's JSON (see ``changeChannel``); past ``changeRowLimit`` rows, and for a
    /// `TRUNCATE`, a record of the table alone.
    ///
    /// PostgreSQL serializes the commits of transactions that notify, so a statement notifies
    /// ``changeChannel`` only when no other transaction in progress has: the listeners, woken,
    /// read the log, and keep reading it until every transaction that was in progress then has
    /// ended. The function runs as its owner (`SECURITY DEFINER`), so that any role that writes
    /// the tables can record their changes, and names everything it uses with its schema, so
    /// that no writer's `search_path` can lend it a function; the roles of live values need
    /// `SELECT` and `DELETE` on the log.
    ///
    /// Names are those of tables in `schema`, or when it is nil in the schema where the SQL runs
    /// (the first of its `search_path` that exists); all are quoted here (a name may hold any
    /// character). Running the SQL again replaces the function and triggers with the same ones,
    /// keeps the log, and drops the single trigger that earlier versions installed. Paste it
    /// into a migration file, or run it with ``installChangeNotifications(on:schema:)``.
    public static func changeNotificationSQL(on tables: [String], schema: String? = nil) -> String {
        let prefix = schema.map { String.quotedIdentifier($0) + "." } ?? ""
        // The function's cost comes off every writer's commit throughput (Benchmarks/README.md
        // counts it in instructions per insert), so it runs one query per transition table,
        // without an aggregate: a record per changed row, each its table's OID (which the
        // listeners' read turns into its name) and the row's JSON, cut at the most that listeners
        // read (a JSON object cut short is never valid, so they take it as any row of the
        // table). A statement of more rows than the limit records one past it, then its table
        // alone. The function runs as its owner, so every name in it is schema-qualified, out of
        // reach of a writer's search path (`SET search_path` would cost a configuration change
        // per call).
        let limit = String(changeRowLimit)
        let record = { (transitionTable: String, key: String, other: String) in
            """
            INSERT INTO \(changeLog) (payload)
                        SELECT live_query_trigger.relation OPERATOR(pg_catalog.||) ' ' OPERATOR(pg_catalog.||) pg_catalog.left(
                                '{"\(key)":[' OPERATOR(pg_catalog.||) pg_catalog.row_to_json(live_query_row.*)::pg_catalog.text
                                    OPERATOR(pg_catalog.||) '],"\(other)":[]}', \(RowImages.maxBytes))
                        FROM \(transitionTable) AS live_query_row LIMIT \(changeRowLimit + 1);
                    GET DIAGNOSTICS recorded = ROW_COUNT
            """
        }
        let (insert, update, delete) = (changeTriggers[0].name, changeTriggers[1].name, changeTriggers[2].name)
        // The log is created once and never replaced: listeners keep their place in it by id.
        var sql = """
            CREATE SCHEMA IF NOT EXISTS live_query;
            CREATE UNLOGGED TABLE IF NOT EXISTS \(changeLog) (
                id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                xid xid8 NOT NULL DEFAULT pg_catalog.pg_current_xact_id(),
                payload text NOT NULL
            );
            CREATE INDEX IF NOT EXISTS changes_xid ON \(changeLog) (xid);
            CREATE OR REPLACE FUNCTION \(String.quotedIdentifier(changeFunction))() RETURNS trigger LANGUAGE plpgsql
            SECURITY DEFINER AS $$
            <<live_query_trigger>>
            DECLARE
                relation pg_catalog.text := TG_RELID::pg_catalog.text;
                recorded pg_catalog.int8;
            BEGIN
                IF TG_NAME OPERATOR(pg_catalog.=) \(String.quotedLiteral(insert)) THEN
                    \(record("live_query_new", "n", "o"));
                ELSIF TG_NAME OPERATOR(pg_catalog.=) \(String.quotedLiteral(update)) THEN
                    \(record("live_query_old", "o", "n"));
                    IF recorded OPERATOR(pg_catalog.<=) \(limit) THEN
                        \(record("live_query_new", "n", "o"));
                    END IF;
                ELSIF TG_NAME OPERATOR(pg_catalog.=) \(String.quotedLiteral(delete)) THEN
                    \(record("live_query_old", "o", "n"));
                ELSE
                    recorded := \(changeRowLimit + 1);
                END IF;
                -- More rows than the records hold, or a TRUNCATE: any row of the table.
                IF recorded OPERATOR(pg_catalog.>) \(limit) THEN
                    INSERT INTO \(changeLog) (payload) VALUES (relation);
                END IF;
                -- PostgreSQL serializes the commits of transactions that notify: only the one
                -- transaction that holds this lock wakes the listeners. The others' records are
                -- found by the listeners' next read, which follows every transaction still in
                -- progress when it read (see ChangeListener).
                IF pg_catalog.pg_try_advisory_xact_lock(\(wakeLock.0), \(wakeLock.1)) THEN
                    PERFORM pg_catalog.pg_notify(\(String.quotedLiteral(changeChannel)), '');
                END IF;
                RETURN NULL;
            END live_query_trigger
            $$;

            """
        for table in tables {
            let target = prefix + String.quotedIdentifier(table)
            for trigger in changeTriggers {
                sql += """
                    CREATE OR REPLACE TRIGGER \(String.quotedIdentifier(trigger.name))
                        AFTER \(trigger.event) ON \(target)\(trigger.referencing)
                        FOR EACH STATEMENT EXECUTE FUNCTION \(String.quotedIdentifier(changeFunction))();

                    """
            }
            sql += "DROP TRIGGER IF EXISTS \(String.quotedIdentifier(formerChangeTrigger)) ON \(target);\n"
        }
        return sql
    }

    /// SQL that installs, idempotently, two event triggers of the whole database (on
    /// `ddl_command_end` and `sql_drop`) that notify ``changeChannel`` of any schema change:
    /// every live value then learns again which tables its SQL reads, and refetches. Without
    /// them, a view redefined over other tables, or a column added to a table that a `SELECT *`
    /// reads, is seen only by a live value that refetches for another reason.
    ///
    /// Only a superuser may create event triggers: ``installChangeNotifications(on:schema:)``
    /// runs this SQL when it connects as one, and otherwise leaves it out (see
    /// ``followsSchemaChanges()``); a superuser may run it in a migration instead.
    public static var schemaChangeNotificationSQL: String {
        var sql = """
            CREATE OR REPLACE FUNCTION \(String.quotedIdentifier(schemaChangeFunction))() RETURNS event_trigger LANGUAGE plpgsql AS $$
            BEGIN
                PERFORM pg_notify(\(String.quotedLiteral(changeChannel)), \(String.quotedLiteral(schemaChangePayload)));
            END
            $$;

            """
        // No `CREATE OR REPLACE EVENT TRIGGER`: an existing one is kept.
        for (name, event) in schemaChangeTriggers.sorted(by: { $0.key < $1.key }) {
            sql += """
                DO $$
                BEGIN
                    IF NOT EXISTS (SELECT FROM pg_catalog.pg_event_trigger WHERE evtname = \(String.quotedLiteral(name))) THEN
                        CREATE EVENT TRIGGER \(String.quotedIdentifier(name)) ON \(event)
                            EXECUTE FUNCTION \(String.quotedIdentifier(schemaChangeFunction))();
                    END IF;
                END
                $$;

                """
        }
        return sql
    }

    /// Installs the function and triggers of ``changeNotificationSQL(on:schema:)`` on `tables`
    /// of `schema` (nil: the current schema), and when this connection's role is a superuser
    /// those of ``schemaChangeNotificationSQL``, in one transaction. Installing them again, or
    /// from several processes at once, is harmless.
    ///
    /// Throws ``PostgreSQLError`` of kind ``PostgreSQLError/Kind/other`` naming the first of
    /// `tables` that is not a table of the schema, before changing anything.
    public func installChangeNotifications(on tables: [String], schema: String? = nil) async throws {
        try await transaction { tx in
            // Two processes replacing the function at once would fail with "tuple concurrently
            // updated": they take turns.
            try await tx.execute("SELECT 1 FROM pg_advisory_xact_lock(hashtext($1))", [.text(Self.changeChannel)])
            let schemaArgument: DatabaseValue = schema.map { .text($0) } ?? .null
            for table in tables {
                let found = try await tx.fetchOne(
                    """
                    SELECT count(*) AS n FROM pg_catalog.pg_class c
                    JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
                    WHERE n.nspname = coalesce($2, current_schema()) AND c.relname = $1 AND c.relkind IN ('r', 'p')
                    """,
                    [.text(table), schemaArgument])
                guard let found, try found["n"] as Int > 0 else {
                    var name = schema ?? "?"
                    if schema == nil, let current = try await tx.fetchOne("SELECT current_schema() AS name") {
                        name = try current["name"]
                    }
                    throw PostgreSQLError(
                        kind: .other,
                        message:
                            "cannot install change notifications on table \(String.quotedIdentifier(table)): no such table in "
                            + "schema \(String.quotedIdentifier(name)); create it first")
                }
            }
            var sql = Self.changeNotificationSQL(on: tables, schema: schema)
            let isSuperuser = try await tx.fetchOne(
                "SELECT rolsuper AS yes FROM pg_catalog.pg_roles WHERE rolname = current_user")
            if let isSuperuser, try isSuperuser["yes"] as Bool {
                sql += Self.schemaChangeNotificationSQL
            }
            for statement in SQLScript.statements(sql) {
                do {
                    try await tx.execute(statement)
                } catch var error as PostgreSQLError
                    where error.sqlState == "42501" && statement.hasPrefix("CREATE SCHEMA")
                {
                    error.hint =
                        "the change log is the table \(Self.changeLog), in a schema of its own: grant this role CREATE "
                        + "on the database, or have a superuser run CREATE SCHEMA live_query AUTHORIZATION "
                        + "\(String.quotedIdentifier(configuration.user)) once"
                    throw error
                }
            }
        }
    }

    /// Installs change notifications on every table of the current schema (`current_schema()`),
    /// as ``installChangeNotifications(on:schema:)`` does. Tables created later need installing
    /// too.
    public func installChangeNotifications() async throws {
        let rows = try await fetchAll(
            """
            SELECT c.relname AS name FROM pg_catalog.pg_class c
            JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p')
            ORDER BY c.relname
            """)
        try await installChangeNotifications(on: rows.map { try $0["name"] as String })
    }

    /// True when the event triggers of ``schemaChangeNotificationSQL`` are installed and enabled
    /// in this database: live values follow schema changes. False after an install by a role
    /// that is not a superuser, which installs the table triggers only.
    public func followsSchemaChanges() async throws -> Bool {
        let names = Self.schemaChangeTriggers.keys.sorted().map(String.quotedLiteral).joined(separator: ", ")
        let found = try await fetchOne(
            "SELECT count(*) AS n FROM pg_catalog.pg_event_trigger WHERE evtname IN (\(names)) AND evtenabled <> 'D'")
        guard let found else { return false }
        return try found["n"] as Int == Self.schemaChangeTriggers.count
    }

    /// The tables that `sql` reads, as PostgreSQL's plan for it resolves them (views to their
    /// tables, joins and subqueries included), that have no enabled trigger of
    /// ``changeNotificationSQL(on:schema:)``: a live value of `sql` would never see their commits.
    /// Empty when every table it reads has them; nil when the plan reads something other than
    /// tables (a function, a foreign table), so that what it reads is unknown. Nothing runs but
    /// `EXPLAIN`, with `arguments` bound.
    public func tablesWithoutChangeNotifications(
        readBy sql: String, _ arguments: [DatabaseValue] = []
    ) async throws -> [(schema: String, table: String)]? {
        guard let explanation = try await fetchAll("EXPLAIN (VERBOSE, FORMAT JSON) " + sql, arguments).first,
            let tables = PlanTables.tables(inExplanation: explanation.value(at: 0))
        else { return nil }
        var seen: Set<String> = []
        var missing: [(schema: String, table: String)] = []
        for table in tables where seen.insert(Self.qualifiedName(schema: table.schema, table: table.table)).inserted {
            let found = try await fetchOne(
                """
                SELECT count(*) AS n FROM pg_catalog.pg_trigger AS t JOIN pg_catalog.pg_proc AS p ON p.oid = t.tgfoid
                WHERE t.tgrelid = $1::regclass AND p.proname = $2 AND NOT t.tgisinternal AND t.tgenabled <> 'D'
                """,
                [.text(Self.qualifiedName(schema: table.schema, table: table.table)), .text(Self.changeFunction)])
            if try found?["n"] as Int? ?? 0 == 0 { missing.append(table) }
        }
        return missing
    }

    /// How live values name a table: `schema.table`, both parts quoted, so that no two tables
    /// share a name; the payload of its change notifications.
    static func qualifiedName(schema: String, table: String) -> String {
        String.quotedIdentifier(schema) + "." + String.quotedIdentifier(table)
    }
}
