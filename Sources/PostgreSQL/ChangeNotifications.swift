import QueryBuilder
import SQLCore
import SQLRecords

extension PostgreSQLDatabase {
    /// The channel on which the triggers of ``changeNotificationSQL(on:)`` notify, with the
    /// changed table's name as the payload.
    public static let changeChannel = "live_query_changes"

    /// The trigger function every change trigger runs.
    static let changeFunction = "live_query_notify_change"

    /// SQL that installs, idempotently, a trigger function and, on each of `tables`, one
    /// statement-level trigger (`AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE … FOR EACH
    /// STATEMENT`) that runs `pg_notify(changeChannel, TG_TABLE_NAME)`.
    ///
    /// Names are those of tables in the current schema, quoted here (a name may hold any
    /// character). Running the SQL again replaces the function and triggers with the same ones.
    /// Paste it into a migration file, or run it with ``installChangeNotifications(on:)``.
    /// A statement that changes several rows notifies once, and PostgreSQL delivers identical
    /// notifications of one transaction once, at commit.
    public static func changeNotificationSQL(on tables: [String]) -> String {
        var sql = """
            CREATE OR REPLACE FUNCTION \(quoted(changeFunction))() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                PERFORM pg_notify(\(literal(changeChannel)), TG_TABLE_NAME);
                RETURN NULL;
            END
            $$;

            """
        for table in tables {
            sql += """
                CREATE OR REPLACE TRIGGER \(quoted(changeChannel))
                    AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON \(quoted(table))
                    FOR EACH STATEMENT EXECUTE FUNCTION \(quoted(changeFunction))();

                """
        }
        return sql
    }

    /// Installs the function and triggers of ``changeNotificationSQL(on:)`` on `tables`, in one
    /// transaction. Installing them again is harmless.
    ///
    /// Throws ``PostgreSQLError`` of kind ``PostgreSQLError/Kind/other`` naming the first of
    /// `tables` that is not a table of the current schema, before changing anything.
    public func installChangeNotifications(on tables: [String]) async throws {
        try await transaction { tx in
            // Two processes replacing the function at once would fail with "tuple concurrently
            // updated": they take turns.
            try await tx.execute("SELECT 1 FROM pg_advisory_xact_lock(hashtext($1))", [.text(Self.changeChannel)])
            for table in tables {
                let found = try await tx.fetchOne(
                    """
                    SELECT count(*) AS n FROM pg_catalog.pg_class c
                    JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
                    WHERE n.nspname = current_schema() AND c.relname = $1 AND c.relkind IN ('r', 'p')
                    """,
                    [.text(table)])
                guard let found, try found["n"] as Int > 0 else {
                    let schema: String = try await tx.fetchOne("SELECT current_schema() AS name")?["name"] ?? "?"
                    throw PostgreSQLError(
                        kind: .other,
                        message:
                            "cannot install change notifications on table \(Self.quoted(table)): no such table in "
                            + "schema \(Self.quoted(schema)); create it first")
                }
            }
            for statement in SQLScript.statements(Self.changeNotificationSQL(on: tables)) {
                try await tx.execute(statement)
            }
        }
    }

    /// Installs change notifications on every table of the current schema (`current_schema()`),
    /// as ``installChangeNotifications(on:)`` does. Tables created later need installing too.
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

    /// `name` as a quoted identifier: in double quotes, its double quotes doubled.
    static func quoted(_ name: String) -> String {
        "\"" + String(name.flatMap { $0 == "\"" ? ["\"", "\""] : [$0] }) + "\""
    }

    /// `text` as a string literal: in single quotes, its single quotes doubled.
    private static func literal(_ text: String) -> String {
        "'" + String(text.flatMap { $0 == "'" ? ["'", "'"] : [$0] }) + "'"
    }
}
