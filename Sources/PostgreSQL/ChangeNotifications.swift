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
    /// name (a record of an earlier version's triggers, which recorded the name itself, reads as
    /// a change of any table); a name sent on the channel, as the earliest versions' triggers
    /// did, is read as it is.
    public static let changeChannel = "live_query_changes"

    /// The table where the change triggers record each changed row, in the schema `live_query`:
    /// unlogged (a crash empties it, and ends every listening connection anyway), read through
    /// ``readableChangeLog`` and pruned by ``pruneFunction``. Only its owner, the role that
    /// created it, may read it or delete from it; every role may add a record of a change to a
    /// table that it may write, and nothing else.
    public static let changeLog = "live_query.changes"

    /// The view of ``changeLog`` that the listening connections read, which every role may
    /// read: the records of the tables that the reading role may `SELECT` from, with their rows
    /// when it may `SELECT` every column and no row-level security policy applies to it, and with
    /// only their table otherwise (any row may have changed), so that no role learns from it a
    /// row or a column that it could not read from the table.
    public static let readableChangeLog = "live_query.readable_changes"

    /// The function that deletes the records that every listener has been able to read for a
    /// minute (the records of the transactions that had all ended then), and nothing else, so
    /// that no role can make another miss a change: it runs as the log's owner, takes no
    /// argument, and every role may call it. The listeners call it every 10 s, and one
    /// statement in 1,000 of the change triggers does, so that the log keeps about a minute of
    /// records while no instance listens.
    public static let pruneFunction = "live_query.prune_changes()"

    /// Where ``pruneFunction`` keeps its samples of the oldest transaction in progress.
    static let pruneHorizons = "live_query.prune_horizons"

    /// The most rows a statement may change, before and after, for its change to carry them:
    /// past it, any row of the table may have changed.
    public static let changeRowLimit = 100

    /// The trigger function every change trigger runs, in the schema `live_query`.
    static let changeFunction = "live_query_notify_change"
    static let qualifiedChangeFunction = "live_query.live_query_notify_change"

    /// The transaction-level advisory lock whose holder wakes the listeners: its two-key form,
    /// a space apart from the one-key locks that applications take most.
    static let wakeLock = (Int32(0x6C69_7665), Int32(0x7175_6572))

    /// The change triggers of each table: PostgreSQL allows transition tables only on a trigger
    /// of one event. `type` is the trigger's `pg_trigger.tgtype`: its event, after the
    /// statement.
    static let changeTriggers = [
        (
            name: "live_query_changes_insert", event: "INSERT", type: 4, old: "", new: "live_query_new",
            referencing: " REFERENCING NEW TABLE AS live_query_new"
        ),
        (
            name: "live_query_changes_update", event: "UPDATE", type: 16, old: "live_query_old", new: "live_query_new",
            referencing: " REFERENCING OLD TABLE AS live_query_old NEW TABLE AS live_query_new"
        ),
        (
            name: "live_query_changes_delete", event: "DELETE", type: 8, old: "live_query_old", new: "",
            referencing: " REFERENCING OLD TABLE AS live_query_old"
        ),
        (name: "live_query_changes_truncate", event: "TRUNCATE", type: 32, old: "", new: "", referencing: ""),
    ]

    /// The one trigger of every event that earlier versions installed, named after the channel.
    static let formerChangeTrigger = changeChannel

    /// The event trigger function of schema changes, and its two event triggers.
    static let schemaChangeFunction = "live_query_notify_schema_change"
    static let qualifiedSchemaChangeFunction = "live_query.live_query_notify_schema_change"
    static let schemaChangeTriggers = [
        "live_query_schema_changes": "ddl_command_end", "live_query_schema_drops": "sql_drop",
    ]

    /// The payload of a schema change: never that of a table, which starts with a double quote.
    static let schemaChangePayload = "schema"

    /// The version of the log's view and functions, kept in the view's comment: a checksum of
    /// their SQL, so that any change to it makes an install replace them, and an install of the
    /// same SQL takes no lock. FNV-1a, stable from one process and platform to the next.
    static func changeLogVersion(of sql: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in sql.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return "live_query " + String(hash, radix: 16)
    }

    /// SQL that installs, idempotently, the change log (``changeLog``, ``readableChangeLog``,
    /// ``pruneFunction``), a trigger function and, on each of `tables`, four statement-level
    /// triggers (`AFTER INSERT`, `AFTER UPDATE`, `AFTER DELETE`, each with its transition
    /// tables, and `AFTER TRUNCATE`) that record each statement's change in the log: a record per
    /// changed row, before and after, each the table and the row's JSON (see
    /// ``changeChannel``); past ``changeRowLimit`` rows, and for a `TRUNCATE`, a record of the
    /// table alone. The triggers are enabled `ALWAYS`, so that they fire in sessions that replay
    /// changes too (`session_replication_role = replica`: a logical-replication subscriber, a
    /// restore), and so are the event triggers; a table installed again gets them enabled again.
    ///
    /// PostgreSQL serializes the commits of transactions that notify, so a statement notifies
    /// ``changeChannel`` only when no other transaction in progress has: the listeners, woken,
    /// read the log, and keep reading it until every transaction that was in progress then has
    /// ended. The trigger function runs as the role that writes (`SECURITY INVOKER`), so that
    /// nothing a writer creates (a type's cast to `json`, a function in its `search_path`) ever
    /// runs with another role's rights, and names everything it uses with its schema.
    ///
    /// Each step runs only when what it makes is missing or differs, so that installing again
    /// takes no lock and needs no privilege beyond the table's: the schema, the log and its
    /// view once, by a role with `CREATE` on the database; then each table's triggers, by its
    /// owner. Earlier versions' trigger functions, which ran as their owner, are made to run as
    /// the writer too, and the grants they needed on the log are revoked.
    ///
    /// Names are those of tables in `schema`, or when it is nil in the schema where the SQL runs
    /// (the first of its `search_path` that exists); all are quoted here (a name may hold any
    /// character). Paste it into a migration file, or run it with
    /// ``installChangeNotifications(on:schema:)``, which takes the locks a step needs a short
    /// while at a time.
    public static func changeNotificationSQL(on tables: [String], schema: String? = nil) -> String {
        tables.reduce(
            ownershipCheckSQL(
                trusting: "SELECT r.oid FROM pg_catalog.pg_roles AS r WHERE r.rolname = current_user",
                for: "the installing role") + changeLogSQL
        ) { $0 + changeTriggerSQL(on: $1, schema: schema) }
    }

    /// The part of ``changeNotificationSQL(on:schema:)`` that installs the log, its view and
    /// functions: each in a `DO` block that does nothing when it is already in place.
    static var changeLogSQL: String {
        // The function's cost comes off every writer's commit throughput (Benchmarks/README.md
        // counts it in instructions per insert), so it runs one query per transition table,
        // without an aggregate: a record per changed row, each its table's OID (which the
        // listeners' read turns into its name) and the row's JSON, cut at the most that listeners
        // read (a JSON object cut short is never valid, so they take it as any row of the
        // table). A statement of more rows than the limit records one past it, then its table
        // alone. Every name in it is schema-qualified, out of reach of a writer's search path
        // (`SET search_path` would cost a configuration change per call).
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
        let triggerFunction = """
            CREATE OR REPLACE FUNCTION \(qualifiedChangeFunction)() RETURNS trigger LANGUAGE plpgsql
                SECURITY INVOKER AS $function$
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
                    -- The log stays about a minute long while no instance listens.
                    IF pg_catalog.random() OPERATOR(pg_catalog.<) 0.001 THEN
                        PERFORM \(pruneFunction);
                    END IF;
                    RETURN NULL;
                END live_query_trigger
                $function$
            """
        let retention = "interval '\(ChangeLogCursor.retention.components.seconds) seconds'"
        // Runs as the log's owner: it takes no argument, reads nothing a caller controls, and
        // deletes only the records of the transactions that had all ended `retention` ago, as
        // sampled here at most once a second. Rows another transaction is deleting are left to
        // it, so that no writer that prunes ever waits for another.
        let prune = """
            CREATE OR REPLACE FUNCTION \(pruneFunction) RETURNS void LANGUAGE plpgsql
                SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $function$
                DECLARE
                    horizon record;
                BEGIN
                    IF NOT EXISTS (
                        SELECT FROM \(pruneHorizons) WHERE at > pg_catalog.clock_timestamp() - interval '1 second'
                    ) THEN
                        INSERT INTO \(pruneHorizons) (at, oldest)
                            VALUES (pg_catalog.clock_timestamp(), pg_catalog.pg_snapshot_xmin(pg_catalog.pg_current_snapshot()));
                    END IF;
                    SELECT h.at, h.oldest INTO horizon FROM \(pruneHorizons) AS h
                        WHERE h.at <= pg_catalog.clock_timestamp() - \(retention) ORDER BY h.at DESC LIMIT 1;
                    IF FOUND THEN
                        DELETE FROM \(changeLog) WHERE id IN (
                            SELECT id FROM \(changeLog) WHERE xid < horizon.oldest FOR UPDATE SKIP LOCKED);
                        DELETE FROM \(pruneHorizons) WHERE ctid IN (
                            SELECT ctid FROM \(pruneHorizons) WHERE at < horizon.at FOR UPDATE SKIP LOCKED);
                    END IF;
                END
                $function$
            """
        // A record's table is the OID that starts its payload. A role sees the records of the
        // tables it may read a column of: the rows too when it may read every column and no
        // row-level security applies to it, the table alone otherwise; of a partition it may not
        // read, the table alone when it may read a table the partition is part of (the rows are
        // that table's too); a record whose table is gone, or that names none, as a change of any
        // table. The functions run as the role
        // that reads (a view checks only its tables as its owner). No security barrier, so that
        // a read's `id > $1` takes the index rather than check every record: a reader's own
        // condition evaluated before the view's sees the payload column only as computed here,
        // NULL for the records the view leaves out, and their ids and transaction ids, which
        // `pg_current_snapshot()` shows every role anyway.
        let view = """
            CREATE OR REPLACE VIEW \(readableChangeLog) AS
                SELECT c.id, c.xid,
                    CASE WHEN q.through_parent THEN r.relation::pg_catalog.text
                        WHEN r.relation IS NULL OR p.readable IS NULL OR NOT p.readable THEN NULL
                        WHEN NOT pg_catalog.has_table_privilege(r.relation, 'SELECT') THEN r.relation::pg_catalog.text
                        WHEN pg_catalog.row_security_active(r.relation) THEN r.relation::pg_catalog.text
                        ELSE c.payload
                    END AS payload
                FROM \(changeLog) AS c
                CROSS JOIN LATERAL (SELECT pg_catalog.split_part(c.payload, ' ', 1) AS head) AS h
                CROSS JOIN LATERAL (
                    SELECT CASE WHEN h.head OPERATOR(pg_catalog.~) '^[0-9]{1,10}$' THEN
                        CASE WHEN h.head::pg_catalog.int8 OPERATOR(pg_catalog.<=) 4294967295
                            THEN h.head::pg_catalog.int8::pg_catalog.oid END
                    END AS relation) AS r
                CROSS JOIN LATERAL (SELECT pg_catalog.has_any_column_privilege(r.relation, 'SELECT') AS readable) AS p
                CROSS JOIN LATERAL (
                    SELECT CASE WHEN p.readable IS NOT FALSE THEN false ELSE EXISTS (
                        SELECT FROM pg_catalog.pg_partition_ancestors(r.relation) AS a
                        WHERE a.relid OPERATOR(pg_catalog.<>) r.relation AND pg_catalog.has_table_privilege(a.relid, 'SELECT')
                    ) END AS through_parent) AS q
                WHERE r.relation IS NULL OR p.readable IS NOT FALSE OR q.through_parent
            """
        // Records come from triggers only. Which table a record names is not checked: a write
        // may reach a table through a view or column privileges that no check of the writer's
        // own rights sees (such a check made those writes fail), and a record a role's own
        // trigger makes up costs that table's readers a refetch, as a notification on the
        // channel, which any role may send, does; never a missed change, and never a row. Its id
        // and xid are always the log's own.
        let writerCheck = "pg_catalog.pg_trigger_depth() OPERATOR(pg_catalog.>) 0"
        let writerPolicy = """
            CREATE POLICY live_query_writers ON \(changeLog) FOR INSERT TO PUBLIC WITH CHECK (\(writerCheck))
            """
        let version = String.quotedLiteral(changeLogVersion(of: triggerFunction + prune + view + writerCheck))
        return """
            DO $live_query$
            BEGIN
                IF pg_catalog.to_regnamespace('live_query') IS NULL THEN
                    CREATE SCHEMA live_query;
                END IF;
                -- The log is created once and never replaced: listeners keep their place in it by id.
                IF pg_catalog.to_regclass('\(changeLog)') IS NULL THEN
                    CREATE UNLOGGED TABLE \(changeLog) (
                        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                        xid xid8 NOT NULL DEFAULT pg_catalog.pg_current_xact_id(),
                        payload text NOT NULL
                    );
                    CREATE INDEX changes_xid ON \(changeLog) (xid);
                END IF;
                IF pg_catalog.to_regclass('\(pruneHorizons)') IS NULL THEN
                    CREATE UNLOGGED TABLE \(pruneHorizons) (at timestamptz NOT NULL, oldest xid8 NOT NULL);
                END IF;
            END
            $live_query$;
            DO $live_query$
            DECLARE
                holder pg_catalog.oid;
            BEGIN
                -- Only the owner reads or deletes; every role may add the records of its writes.
                IF NOT (SELECT relrowsecurity FROM pg_catalog.pg_class WHERE oid = '\(changeLog)'::pg_catalog.regclass) THEN
                    ALTER TABLE \(changeLog) ENABLE ROW LEVEL SECURITY;
                END IF;
                IF NOT EXISTS (
                    SELECT FROM pg_catalog.pg_policy
                    WHERE polrelid = '\(changeLog)'::pg_catalog.regclass AND polname = 'live_query_writers'
                ) THEN
                    \(writerPolicy);
                END IF;
                FOR holder IN
                    SELECT a.grantee FROM pg_catalog.pg_class AS c, pg_catalog.aclexplode(c.relacl) AS a
                    WHERE c.oid = '\(changeLog)'::pg_catalog.regclass AND a.grantee OPERATOR(pg_catalog.<>) c.relowner
                    UNION
                    SELECT a.grantee FROM pg_catalog.pg_attribute AS t, pg_catalog.aclexplode(t.attacl) AS a
                    WHERE t.attrelid = '\(changeLog)'::pg_catalog.regclass
                        AND NOT (t.attname = 'payload' AND a.grantee = 0 AND a.privilege_type = 'INSERT')
                LOOP
                    EXECUTE pg_catalog.format('REVOKE ALL ON \(changeLog) FROM %s',
                        CASE WHEN holder = 0 THEN 'PUBLIC' ELSE holder::pg_catalog.regrole::pg_catalog.text END);
                END LOOP;
                IF NOT pg_catalog.has_column_privilege('public', '\(changeLog)', 'payload', 'INSERT') THEN
                    GRANT INSERT (payload) ON \(changeLog) TO PUBLIC;
                END IF;
                IF NOT pg_catalog.has_schema_privilege('public', 'live_query', 'USAGE') THEN
                    GRANT USAGE ON SCHEMA live_query TO PUBLIC;
                END IF;
            END
            $live_query$;
            DO $live_query$
            DECLARE
                former pg_catalog.regprocedure;
            BEGIN
                IF pg_catalog.obj_description(pg_catalog.to_regclass('\(readableChangeLog)'), 'pg_class')
                    IS DISTINCT FROM \(version)
                THEN
                    \(triggerFunction);
                    \(prune);
                    \(view);
                    ALTER POLICY live_query_writers ON \(changeLog) WITH CHECK (\(writerCheck));
                    GRANT SELECT ON \(readableChangeLog) TO PUBLIC;
                    COMMENT ON VIEW \(readableChangeLog) IS \(version);
                END IF;
                -- Earlier versions' trigger function, elsewhere, ran as its owner: now as the writer.
                FOR former IN
                    SELECT p.oid FROM pg_catalog.pg_proc AS p
                    WHERE p.proname = \(String.quotedLiteral(changeFunction)) AND p.prosecdef
                LOOP
                    BEGIN
                        EXECUTE pg_catalog.format('ALTER FUNCTION %s SECURITY INVOKER', former);
                    EXCEPTION WHEN insufficient_privilege THEN
                        RAISE WARNING '%: an earlier version''s trigger function, which runs as its owner; have its owner reinstall', former;
                    END;
                END LOOP;
            END
            $live_query$;

            """
    }

    /// A `DO` block that refuses to go on when the schema `live_query` or anything in it
    /// belongs to a role that is neither `trusted` (a role name as SQL computes it) nor a
    /// superuser: whoever owns the trigger function runs code as every writer of the notified
    /// tables, and whoever owns the schema or the log reads every record. A role that could
    /// create the schema first must not gain those rights over another's tables.
    static func ownershipCheckSQL(trusting trusted: String, for who: String) -> String {
        // Inside a literal that `format` reads.
        let who = who.replacingOccurrences(of: "'", with: "''").replacingOccurrences(of: "%", with: "%%")
        return doBlock(
            """
            DECLARE
                foreign_object record;
            BEGIN
                SELECT o.what, o.owner::pg_catalog.regrole::pg_catalog.text AS owner INTO foreign_object FROM (
                    SELECT 'the schema live_query' AS what, n.nspowner AS owner
                    FROM pg_catalog.pg_namespace AS n WHERE n.nspname = 'live_query'
                    UNION ALL
                    SELECT pg_catalog.format('%s', c.oid::pg_catalog.regclass), c.relowner
                    FROM pg_catalog.pg_class AS c WHERE c.relnamespace = pg_catalog.to_regnamespace('live_query')
                    UNION ALL
                    SELECT pg_catalog.format('%s', p.oid::pg_catalog.regprocedure), p.proowner
                    FROM pg_catalog.pg_proc AS p WHERE p.pronamespace = pg_catalog.to_regnamespace('live_query')
                ) AS o
                WHERE o.owner OPERATOR(pg_catalog.<>) (\(trusted))
                    AND NOT (SELECT r.rolsuper FROM pg_catalog.pg_roles AS r WHERE r.oid = o.owner)
                LIMIT 1;
                IF FOUND THEN
                    RAISE EXCEPTION USING ERRCODE = 'insufficient_privilege',
                        MESSAGE = pg_catalog.format(
                            '%s belongs to role %s, which is neither \(who) nor a superuser: its owner would run code '
                            'as every writer of the notified tables and read their changes', foreign_object.what,
                            foreign_object.owner),
                        HINT = 'have a superuser own the schema live_query and everything in it, or drop it '
                            '(DROP SCHEMA live_query CASCADE) and install again';
                END IF;
            END
            """)
    }

    /// The part of ``changeNotificationSQL(on:schema:)`` that installs the triggers of `table`:
    /// nothing when they are in place, enabled, and the former trigger gone; nothing at all,
    /// with an error, when the log's schema is not the table owner's or a superuser's.
    static func changeTriggerSQL(on table: String, schema: String?) -> String {
        let target = (schema.map { String.quotedIdentifier($0) + "." } ?? "") + String.quotedIdentifier(table)
        let expected = changeTriggers.map {
            "(\(String.quotedLiteral($0.name)), \($0.type), \(String.quotedLiteral($0.old)), \(String.quotedLiteral($0.new)))"
        }.joined(separator: ", ")
        var create = ""
        for trigger in changeTriggers {
            create += """
                        CREATE OR REPLACE TRIGGER \(String.quotedIdentifier(trigger.name))
                            AFTER \(trigger.event) ON \(target)\(trigger.referencing)
                            FOR EACH STATEMENT EXECUTE FUNCTION \(qualifiedChangeFunction)();
                        ALTER TABLE \(target) ENABLE ALWAYS TRIGGER \(String.quotedIdentifier(trigger.name));

                """
        }
        let owner =
            "SELECT c.relowner FROM pg_catalog.pg_class AS c WHERE c.oid = \(String.quotedLiteral(target))::pg_catalog.regclass"
        return ownershipCheckSQL(trusting: owner, for: "the owner of \(target)")
            + doBlock(
                """
                BEGIN
                    IF (
                        SELECT pg_catalog.count(*) FROM pg_catalog.pg_trigger AS t
                        JOIN (VALUES \(expected)) AS w (name, type, old, new)
                            ON t.tgname OPERATOR(pg_catalog.=) w.name::pg_catalog.name
                            AND t.tgtype OPERATOR(pg_catalog.=) w.type
                            AND coalesce(t.tgoldtable, '') OPERATOR(pg_catalog.=) w.old::pg_catalog.name
                            AND coalesce(t.tgnewtable, '') OPERATOR(pg_catalog.=) w.new::pg_catalog.name
                        WHERE t.tgrelid = \(String.quotedLiteral(target))::pg_catalog.regclass
                            AND t.tgfoid = '\(qualifiedChangeFunction)()'::pg_catalog.regprocedure AND t.tgenabled = 'A'
                    ) OPERATOR(pg_catalog.<>) \(changeTriggers.count) OR EXISTS (
                        SELECT FROM pg_catalog.pg_trigger
                        WHERE tgrelid = \(String.quotedLiteral(target))::pg_catalog.regclass
                            AND tgname = \(String.quotedLiteral(formerChangeTrigger))
                    ) THEN
                \(create)            DROP TRIGGER IF EXISTS \(String.quotedIdentifier(formerChangeTrigger)) ON \(target);
                    END IF;
                END
                """)
    }

    /// SQL that installs, idempotently, two event triggers of the whole database (on
    /// `ddl_command_end` and `sql_drop`) that notify ``changeChannel`` of any schema change:
    /// every live value then learns again which tables its SQL reads, and refetches. Without
    /// them, a view redefined over other tables, or a column added to a table that a `SELECT *`
    /// reads, is seen only by a live value that refetches for another reason.
    ///
    /// Only a superuser may create event triggers: ``installChangeNotifications(on:schema:)``
    /// runs this SQL when it connects as one, and otherwise leaves it out (see
    /// ``followsSchemaChanges()``); a superuser may run it in a migration instead, after
    /// ``changeNotificationSQL(on:schema:)``, which makes the schema `live_query` that holds their
    /// function. The function names everything with its schema and runs with a fixed
    /// `search_path`, as the role that runs each DDL statement does: nothing another role
    /// creates runs in its place. Event triggers of earlier versions, whose function was in the
    /// installer's current schema, are made to call this one.
    public static var schemaChangeNotificationSQL: String {
        var sql = """
            DO $$
            BEGIN
                -- Another role's function of that name would run as everyone who changes the schema.
                IF EXISTS (
                    SELECT FROM pg_catalog.pg_proc AS p JOIN pg_catalog.pg_roles AS r ON r.oid = p.proowner
                    WHERE p.oid = pg_catalog.to_regprocedure('\(qualifiedSchemaChangeFunction)()') AND NOT r.rolsuper
                ) THEN
                    DROP FUNCTION \(qualifiedSchemaChangeFunction)() CASCADE;
                END IF;
            END
            $$;
            CREATE OR REPLACE FUNCTION \(qualifiedSchemaChangeFunction)() RETURNS event_trigger LANGUAGE plpgsql
                SET search_path = pg_catalog, pg_temp AS $$
            BEGIN
                PERFORM pg_catalog.pg_notify(\(String.quotedLiteral(changeChannel)), \(String.quotedLiteral(schemaChangePayload)));
            END
            $$;

            """
        // No `CREATE OR REPLACE EVENT TRIGGER`: one in place, calling this function, is kept.
        for (name, event) in schemaChangeTriggers.sorted(by: { $0.key < $1.key }) {
            sql += """
                DO $$
                BEGIN
                    IF NOT EXISTS (
                        SELECT FROM pg_catalog.pg_event_trigger WHERE evtname = \(String.quotedLiteral(name))
                            AND evtfoid = '\(qualifiedSchemaChangeFunction)()'::pg_catalog.regprocedure
                    ) THEN
                        DROP EVENT TRIGGER IF EXISTS \(String.quotedIdentifier(name));
                        CREATE EVENT TRIGGER \(String.quotedIdentifier(name)) ON \(event)
                            EXECUTE FUNCTION \(qualifiedSchemaChangeFunction)();
                    END IF;
                    IF NOT EXISTS (
                        SELECT FROM pg_catalog.pg_event_trigger WHERE evtname = \(String.quotedLiteral(name)) AND evtenabled = 'A'
                    ) THEN
                        ALTER EVENT TRIGGER \(String.quotedIdentifier(name)) ENABLE ALWAYS;
                    END IF;
                END
                $$;

                """
        }
        return sql
    }

    /// Installs the log, function and triggers of ``changeNotificationSQL(on:schema:)`` on
    /// `tables` of `schema` (nil: the current schema), and when this connection's role is a
    /// superuser those of ``schemaChangeNotificationSQL``. Installing them again, or from several
    /// processes at once, is harmless: what is in place is left as it is, without a lock.
    ///
    /// The log comes first, in a transaction of its own, then each table's triggers in one of
    /// their own, so that waiting for one table never holds another. A step that needs a lock
    /// waits for it at most 100 ms at a time, and gives way (rolls back, then tries again a
    /// little later, for up to ``installPatience``, or the configuration's `lockTimeout` when it
    /// has one), so that no other session's statement queues
    /// behind it for longer, or meets it in a deadlock.
    ///
    /// Throws ``PostgreSQLError`` of kind ``PostgreSQLError/Kind/other`` naming the first of
    /// `tables` that is not a table of the schema, before changing anything; or naming the
    /// table that stayed locked by other transactions for that long, after installing
    /// the tables before it.
    public func installChangeNotifications(on tables: [String], schema: String? = nil) async throws {
        let schemaArgument: DatabaseValue = schema.map { .text($0) } ?? .null
        for table in tables {
            let found = try await fetchOne(
                """
                SELECT count(*) AS n FROM pg_catalog.pg_class c
                JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
                WHERE n.nspname = coalesce($2, current_schema()) AND c.relname = $1 AND c.relkind IN ('r', 'p')
                """,
                [.text(table), schemaArgument])
            guard let found, try found["n"] as Int > 0 else {
                var name = schema ?? "?"
                if schema == nil, let current = try await fetchOne("SELECT current_schema() AS name") {
                    name = try current["name"]
                }
                throw PostgreSQLError(
                    kind: .other,
                    message:
                        "cannot install change notifications on table \(String.quotedIdentifier(table)): no such table in "
                        + "schema \(String.quotedIdentifier(name)); create it first")
            }
        }
        // The log of another role (not a superuser) is left as it is: each table's step then
        // installs only when that role owns the table.
        let foreign = try await fetchOne(
            """
            SELECT EXISTS (
                SELECT FROM (
                    SELECT n.nspowner AS owner FROM pg_catalog.pg_namespace AS n WHERE n.nspname = 'live_query'
                    UNION ALL SELECT c.relowner FROM pg_catalog.pg_class AS c
                    WHERE c.relnamespace = pg_catalog.to_regnamespace('live_query')
                    UNION ALL SELECT p.proowner FROM pg_catalog.pg_proc AS p
                    WHERE p.pronamespace = pg_catalog.to_regnamespace('live_query')
                ) AS o JOIN pg_catalog.pg_roles AS r ON r.oid = o.owner
                WHERE r.rolname <> current_user AND NOT r.rolsuper
            ) AS yes
            """)
        var logSQL = try foreign?["yes"] as Bool? == true ? "" : Self.changeLogSQL
        let isSuperuser = try await fetchOne(
            "SELECT rolsuper AS yes FROM pg_catalog.pg_roles WHERE rolname = current_user")
        if let isSuperuser, try isSuperuser["yes"] as Bool {
            logSQL += Self.schemaChangeNotificationSQL
        }
        if !logSQL.isEmpty {
            try await installStep(logSQL, locking: "the change log \(Self.changeLog)") { tx in
                // Two processes replacing the function at once would fail with "tuple concurrently
                // updated": they take turns.
                try await tx.execute("SELECT 1 FROM pg_advisory_xact_lock(hashtext($1))", [.text(Self.changeChannel)])
            }
        }
        for table in try await withPartitions(tables, schema: schema) {
            let name =
                (table.schema.map { String.quotedIdentifier($0) + "." } ?? "") + String.quotedIdentifier(table.name)
            try await installStep(Self.changeTriggerSQL(on: table.name, schema: table.schema), locking: "table \(name)")
            {
                _ in
            }
        }
    }

    /// `tables` of `schema`, each followed by its partitions at every level (in their own
    /// schemas), which a write through the table itself reaches without firing their own
    /// statement triggers, and a write to a partition without firing the table's.
    private func withPartitions(
        _ tables: [String], schema: String?
    ) async throws -> [(schema: String?, name: String)] {
        var all: [(schema: String?, name: String)] = []
        for table in tables {
            all.append((schema, table))
            let target = (schema.map { String.quotedIdentifier($0) + "." } ?? "") + String.quotedIdentifier(table)
            let partitions = try await fetchAll(
                """
                SELECT n.nspname::text AS schema, c.relname::text AS name
                FROM pg_catalog.pg_partition_tree($1::pg_catalog.regclass) AS t
                JOIN pg_catalog.pg_class AS c ON c.oid = t.relid JOIN pg_catalog.pg_namespace AS n ON n.oid = c.relnamespace
                WHERE t.level > 0 AND c.relkind IN ('r', 'p') ORDER BY t.level, c.relname
                """, [.text(target)])
            for row in partitions { all.append((try row["schema"] as String, try row["name"] as String)) }
        }
        return all
    }

    /// Removes the change triggers of `tables` of `schema` (nil: the current schema): their
    /// commits are no longer recorded, and live values that read them no longer follow them.
    /// Each table in a transaction of its own, taking its lock as an install does; a table
    /// without them is left as it is.
    public func uninstallChangeNotifications(on tables: [String], schema: String? = nil) async throws {
        for table in try await withPartitions(tables, schema: schema) {
            let name =
                (table.schema.map { String.quotedIdentifier($0) + "." } ?? "") + String.quotedIdentifier(table.name)
            try await installStep(Self.dropTriggersSQL(on: name), locking: "table \(name)", action: "uninstall") { _ in
            }
        }
    }

    /// Removes everything that the installs put in this database: the change triggers of every
    /// table, the event triggers of schema changes, the trigger functions, and the schema
    /// `live_query` with the log, its view and its functions. Live values of the database then
    /// follow no commit of another connection. Needs the owner of each table with triggers, of
    /// the schema, and for the event triggers a superuser.
    public func uninstallChangeNotifications() async throws {
        let tables = try await fetchAll(
            """
            SELECT DISTINCT t.tgrelid::regclass::text AS name FROM pg_catalog.pg_trigger AS t
            JOIN pg_catalog.pg_proc AS p ON p.oid = t.tgfoid
            WHERE p.proname = $1 AND NOT t.tgisinternal ORDER BY 1
            """, [.text(Self.changeFunction)])
        for row in tables {
            let name: String = try row["name"]
            try await installStep(Self.dropTriggersSQL(on: name), locking: "table \(name)", action: "uninstall") { _ in
            }
        }
        let events = Self.schemaChangeTriggers.keys.sorted().map {
            "DROP EVENT TRIGGER IF EXISTS \(String.quotedIdentifier($0));"
        }
        let script = """
            \(events.joined(separator: "\n"))
            DO $live_query$
            DECLARE
                routine pg_catalog.regprocedure;
            BEGIN
                FOR routine IN
                    SELECT p.oid FROM pg_catalog.pg_proc AS p
                    WHERE p.proname IN (\(String.quotedLiteral(Self.changeFunction)), \(String.quotedLiteral(Self.schemaChangeFunction)))
                        AND p.pronamespace OPERATOR(pg_catalog.<>) pg_catalog.to_regnamespace('live_query')
                LOOP
                    EXECUTE pg_catalog.format('DROP FUNCTION %s CASCADE', routine);
                END LOOP;
            END
            $live_query$;
            DROP SCHEMA IF EXISTS live_query CASCADE;
            """
        try await installStep(script, locking: "the change log \(Self.changeLog)", action: "uninstall") { _ in }
    }

    /// SQL that drops the change triggers of `table` (a name as SQL writes it), when it has any.
    static func dropTriggersSQL(on table: String) -> String {
        let names = (changeTriggers.map(\.name) + [formerChangeTrigger]).map(String.quotedLiteral)
        let drops = (changeTriggers.map(\.name) + [formerChangeTrigger]).map {
            "        DROP TRIGGER IF EXISTS \(String.quotedIdentifier($0)) ON \(table);\n"
        }.joined()
        return doBlock(
            """
            BEGIN
                IF EXISTS (
                    SELECT FROM pg_catalog.pg_trigger
                    WHERE tgrelid = \(String.quotedLiteral(table))::pg_catalog.regclass
                        AND tgname IN (\(names.joined(separator: ", ")))
                ) THEN
            \(drops)    END IF;
            END
            """)
    }

    /// `DO` with `body`, dollar-quoted by a tag that `body` (which may hold a table's name)
    /// does not contain, so that no name ends the block early.
    static func doBlock(_ body: String) -> String {
        var tag = "$live_query$"
        var number = 0
        while body.contains(tag) {
            number += 1
            tag = "$live_query_\(number)$"
        }
        return "DO \(tag)\n\(body)\n\(tag);\n\n"
    }

    /// How long ``installChangeNotifications(on:schema:)`` keeps trying to take the lock a step
    /// needs, while other transactions hold it.
    public static let installPatience = Duration.seconds(30)

    /// Runs the statements of `script` in a transaction that `prepare` begins, in which no lock
    /// is waited for longer than 100 ms; when one is, rolls back and runs it all again after a
    /// pause (20 ms, doubling up to 500 ms), for up to ``installPatience``.
    private func installStep(
        _ script: String, locking what: String, action: String = "install",
        prepare: (PostgreSQLTransaction) async throws -> Void
    ) async throws {
        let started = ContinuousClock.now
        var pause = Duration.milliseconds(20)
        while true {
            do {
                try await transaction { tx in
                    try await tx.execute("SET LOCAL lock_timeout = '100ms'")
                    try await prepare(tx)
                    for statement in SQLScript.statements(script) {
                        do {
                            try await tx.execute(statement)
                        } catch var error as PostgreSQLError
                            where error.sqlState == "42501" && statement.contains("CREATE SCHEMA live_query")
                        {
                            error.hint =
                                "the change log is the table \(Self.changeLog), in a schema of its own: grant this role "
                                + "CREATE on the database, or have a superuser install change notifications once, after "
                                + "which each table's owner installs those of its own tables"
                            throw error
                        }
                    }
                }
                return
            } catch let error as PostgreSQLError where error.sqlState == "55P03" || error.sqlState == "40P01" {
                let waited = ContinuousClock.now - started
                guard waited < configuration.lockTimeout ?? Self.installPatience else {
                    throw PostgreSQLError(
                        kind: .other,
                        message:
                            "cannot \(action) change notifications: other transactions held \(what) for "
                            + "\(waited.components.seconds) s; nothing of it was changed. Try again when they have "
                            + "ended (pg_locks shows them)",
                        sql: error.sql)
                }
                try await Task.sleep(for: pause)
                pause = min(pause * 2, .milliseconds(500))
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
    /// tables, joins and subqueries included, and each partition with the tables it is a
    /// partition of), whose commits live values would never see: without the enabled triggers of
    /// ``changeNotificationSQL(on:schema:)`` for every event (or, for a materialized view, without
    /// the event triggers of ``schemaChangeNotificationSQL``, which notify its refreshes). Empty
    /// when every table it reads has them; nil when the plan reads something other than tables
    /// (a function, a foreign table), so that what it reads is unknown. Nothing runs but
    /// `EXPLAIN` and reads of the catalog, with `arguments` bound.
    public func tablesWithoutChangeNotifications(
        readBy sql: String, _ arguments: [DatabaseValue] = []
    ) async throws -> [(schema: String, table: String)]? {
        guard let explanation = try await fetchAll("EXPLAIN (VERBOSE, FORMAT JSON) " + sql, arguments).first,
            let tables = PlanTables.tables(inExplanation: explanation.value(at: 0))
        else { return nil }
        let names = tables.map { Self.qualifiedName(schema: $0.schema, table: $0.table) }
        let rows = try await fetchAll(Self.notificationStatusSQL, Self.notificationStatusArguments(names))
        var seen: Set<String> = []
        var missing: [(schema: String, table: String)] = []
        for row in Self.notificationStatus(rows) where !row.followed {
            if seen.insert(Self.qualifiedName(schema: row.schema, table: row.table)).inserted {
                missing.append((row.schema, row.table))
            }
        }
        return missing
    }

    /// For each of a JSON array of tables, as ``qualifiedName(schema:table:)`` names them: the
    /// table and each table it is a partition of (a write through which fires none of the
    /// partition's triggers), each with whether live values follow its commits (all four change
    /// triggers enabled; for a materialized view, the schema change event triggers).
    static let notificationStatusSQL = """
        SELECT t.position::int8, n.nspname::text, c.relname::text,
            CASE WHEN c.relkind = 'm' THEN (
                SELECT pg_catalog.count(*) = \(schemaChangeTriggers.count) FROM pg_catalog.pg_event_trigger
                WHERE evtname IN (\(schemaChangeTriggers.keys.sorted().map(String.quotedLiteral).joined(separator: ", ")))
                    AND evtenabled <> 'D'
            ) ELSE coalesce((
                SELECT pg_catalog.bit_or(g.tgtype::int4 & 60) FROM pg_catalog.pg_trigger AS g
                JOIN pg_catalog.pg_proc AS p ON p.oid = g.tgfoid
                WHERE g.tgrelid = c.oid AND p.proname = $2 AND NOT g.tgisinternal AND g.tgenabled <> 'D'
            ), 0) = 60 END
        FROM pg_catalog.json_array_elements_text($1::json) WITH ORDINALITY AS t(name, position)
        CROSS JOIN LATERAL (
            -- Empty for a table that is no partition.
            SELECT t.name::pg_catalog.regclass AS relid
            UNION SELECT relid FROM pg_catalog.pg_partition_ancestors(t.name::pg_catalog.regclass)
        ) AS a
        JOIN pg_catalog.pg_class AS c ON c.oid = a.relid
        JOIN pg_catalog.pg_namespace AS n ON n.oid = c.relnamespace
        ORDER BY 1
        """

    /// The arguments of ``notificationStatusSQL`` for `tables`.
    static func notificationStatusArguments(_ tables: [String]) -> [DatabaseValue] {
        func quoted(_ text: String) -> String {
            var json = "\""
            for scalar in text.unicodeScalars {
                switch scalar {
                case "\"": json += "\\\""
                case "\\": json += "\\\\"
                case _ where scalar.value < 0x20:
                    json += "\\u00" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16)
                default: json.unicodeScalars.append(scalar)
                }
            }
            return json + "\""
        }
        return [.text("[" + tables.map(quoted).joined(separator: ",") + "]"), .text(changeFunction)]
    }

    /// The rows of ``notificationStatusSQL``, read.
    /// `position` is the table's in the array, from 0.
    static func notificationStatus(_ rows: [Row]) -> [(position: Int, schema: String, table: String, followed: Bool)] {
        rows.map { row in
            func text(_ index: Int) -> String { if case .text(let text) = row.value(at: index) { text } else { "" } }
            let position = if case .integer(let position) = row.value(at: 0) { Int(position) - 1 } else { -1 }
            return (position, text(1), text(2), row.value(at: 3) == .integer(1))
        }
    }

    /// How live values name a table: `schema.table`, both parts quoted, so that no two tables
    /// share a name; the payload of its change notifications.
    static func qualifiedName(schema: String, table: String) -> String {
        String.quotedIdentifier(schema) + "." + String.quotedIdentifier(table)
    }
}
