import Foundation
import Locking
import PostgreSQLTestServer
import SQLite
import Testing

@testable import PostgreSQL

@Suite(.postgreSQLInstalled)
struct ChangeListenerTests {
    typealias Event = ChangeListener.Event

    @Test func eachKindOfWriteNotifiesItsTable() async throws {
        try await TestServer.withDatabase { db in
            try await db.execute("CREATE TABLE items(id INTEGER PRIMARY KEY, title TEXT)")
            try await db.execute("CREATE TABLE untracked(id INTEGER PRIMARY KEY)")
            try await db.installChangeNotifications(on: ["items"])
            let events = Subscriber(ChangeListener.shared(for: db.configuration))
            defer { events.cancel() }
            #expect(try await events.next() == .listening)

            try await withWriter(db) { writer in
                try await writer.execute("INSERT INTO items VALUES (1, 'milk'), (2, 'bread')")
                #expect(try await events.next() == .changed(schema: "public", table: "items"))
                try await writer.execute("UPDATE items SET title = 'eggs' WHERE id = 1")
                #expect(try await events.next() == .changed(schema: "public", table: "items"))
                try await writer.execute("DELETE FROM items WHERE id = 2")
                #expect(try await events.next() == .changed(schema: "public", table: "items"))
                try await writer.execute("TRUNCATE items")
                #expect(try await events.next() == .changed(schema: "public", table: "items"))
                // The untracked write comes first: were it notified, its event would too.
                try await writer.execute("INSERT INTO untracked VALUES (1)")
                try await writer.execute("INSERT INTO items VALUES (3, 'tea')")
                #expect(try await events.next() == .changed(schema: "public", table: "items"))
            }
        }
    }

    @Test func installingTwiceNotifiesOncePerStatement() async throws {
        try await TestServer.withDatabase { db in
            try await db.execute("CREATE TABLE items(id INTEGER PRIMARY KEY)")
            try await db.execute("CREATE TABLE marker(id INTEGER PRIMARY KEY)")
            try await db.installChangeNotifications(on: ["items", "marker"])
            try await db.installChangeNotifications(on: ["items"])
            try await db.installChangeNotifications()
            let triggers = try await db.fetchOne(
                "SELECT count(*) AS n FROM pg_trigger WHERE tgrelid = 'items'::regclass AND NOT tgisinternal")
            // One per event: insert, update, delete, truncate.
            #expect(try triggers?["n"] == 4)

            let events = Subscriber(ChangeListener.shared(for: db.configuration))
            defer { events.cancel() }
            #expect(try await events.next() == .listening)
            try await withWriter(db) { writer in
                try await writer.execute("INSERT INTO items VALUES (1), (2)")
                try await writer.execute("INSERT INTO marker VALUES (1)")
                #expect(try await events.next() == .changed(schema: "public", table: "items"))
                #expect(try await events.next() == .changed(schema: "public", table: "marker"))
            }
        }
    }

    @Test func installingOverTheFormerSingleTriggerReplacesItAndSendsRows() async throws {
        try await TestServer.withDatabase { db in
            try await db.execute("CREATE TABLE items(id INTEGER PRIMARY KEY, title TEXT)")
            try await db.execute("CREATE TABLE legacy(id INTEGER PRIMARY KEY)")
            // What earlier versions installed: one trigger of every event, without transition tables.
            try await db.execute(
                """
                CREATE FUNCTION live_query_notify_change() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    PERFORM pg_notify('live_query_changes',
                        '"' || replace(TG_TABLE_SCHEMA, '"', '""') || '"."' || replace(TG_TABLE_NAME, '"', '""') || '"');
                    RETURN NULL;
                END
                $$
                """)
            for table in ["items", "legacy"] {
                try await db.execute(
                    """
                    CREATE TRIGGER live_query_changes AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON \(table)
                    FOR EACH STATEMENT EXECUTE FUNCTION live_query_notify_change()
                    """)
            }
            try await db.installChangeNotifications(on: ["items"])
            let names = try await db.fetchAll(
                """
                SELECT tgname::text AS name FROM pg_trigger WHERE tgrelid = 'items'::regclass AND NOT tgisinternal
                ORDER BY tgname
                """
            ).map { try $0["name"] as String }
            #expect(names == ["delete", "insert", "truncate", "update"].map { "live_query_changes_\($0)" })

            let events = Subscriber(ChangeListener.shared(for: db.configuration))
            defer { events.cancel() }
            #expect(try await events.next() == .listening)
            try await withWriter(db) { writer in
                // The former trigger, not yet replaced, runs the new function and still notifies.
                try await writer.execute("INSERT INTO legacy VALUES (1)")
                #expect(try await events.next(keepingRows: true) == .changed(schema: "public", table: "legacy"))
                try await writer.execute("INSERT INTO items VALUES (1, 'milk')")
                let row = [
                    RowImages.Column(name: ExactString("id"), value: .number("1")),
                    RowImages.Column(name: ExactString("title"), value: .string("milk")),
                ]
                #expect(
                    try await events.next(keepingRows: true)
                        == .changed(schema: "public", table: "items", rows: RowImages(old: [], new: [row])))
                try await writer.execute("TRUNCATE items")
                #expect(try await events.next(keepingRows: true) == .changed(schema: "public", table: "items"))
            }
        }
    }

    @Test func installingOnAMissingTableThrowsNamingIt() async throws {
        try await TestServer.withDatabase { db in
            try await db.execute("CREATE TABLE items(id INTEGER PRIMARY KEY)")
            let error = await #expect(throws: PostgreSQLError.self) {
                try await db.installChangeNotifications(on: ["items", "missing_table"])
            }
            #expect(error?.kind == .other)
            #expect(error?.message.contains("\"missing_table\"") == true)
            // Nothing was installed, not even on the table that exists.
            let triggers = try await db.fetchOne("SELECT count(*) AS n FROM pg_trigger WHERE NOT tgisinternal")
            #expect(try triggers?["n"] == 0)
        }
    }

    @Test func aTableNameWithQuotesIsQuoted() async throws {
        let name = #"odd"name; DROP TABLE items; --"#
        #expect(PostgreSQLDatabase.changeNotificationSQL(on: [name]).contains(#""odd""name; DROP TABLE items; --""#))
        try await TestServer.withDatabase { db in
            try await db.execute("CREATE TABLE items(id INTEGER PRIMARY KEY)")
            try await db.execute(#"CREATE TABLE "odd""name; DROP TABLE items; --"(id INTEGER)"#)
            try await db.installChangeNotifications(on: [name])
            let events = Subscriber(ChangeListener.shared(for: db.configuration))
            defer { events.cancel() }
            #expect(try await events.next() == .listening)
            try await withWriter(db) { writer in
                try await writer.execute(#"INSERT INTO "odd""name; DROP TABLE items; --" VALUES (1)"#)
                #expect(try await events.next() == .changed(schema: "public", table: name))
            }
            #expect(try await db.fetchAll("SELECT id FROM items").isEmpty)
            // The missing-table check binds the name too.
            let error = await #expect(throws: PostgreSQLError.self) {
                try await db.installChangeNotifications(on: ["items' OR '1'='1"])
            }
            #expect(error?.kind == .other)
        }
    }

    /// A quote followed by a combining mark is one `Character`: quoting by characters left that
    /// quote single, which ended the identifier early.
    @Test func aQuoteFollowedByACombiningMarkIsDoubledToo() async throws {
        let name = "odd\"\u{301}name; DROP TABLE items; --"
        #expect(
            PostgreSQLDatabase.changeNotificationSQL(on: [name]).contains(
                "\"odd\"\"\u{301}name; DROP TABLE items; --\""))
        try await TestServer.withDatabase { db in
            try await db.execute("CREATE TABLE items(id INTEGER PRIMARY KEY)")
            try await db.execute("CREATE TABLE \"odd\"\"\u{301}name; DROP TABLE items; --\"(id INTEGER)")
            try await db.installChangeNotifications(on: [name])
            let events = Subscriber(ChangeListener.shared(for: db.configuration))
            defer { events.cancel() }
            #expect(try await events.next() == .listening)
            try await withWriter(db) { writer in
                try await writer.execute("INSERT INTO \"odd\"\"\u{301}name; DROP TABLE items; --\" VALUES (1)")
                #expect(try await events.next() == .changed(schema: "public", table: name))
            }
            #expect(try await db.fetchAll("SELECT id FROM items").isEmpty)
        }
    }

    @Test func aTableIsNamedWithItsSchemaUnambiguously() async throws {
        try await TestServer.withDatabase { db in
            try await db.execute(#"CREATE SCHEMA "a.b""#)
            try await db.execute(#"CREATE SCHEMA a"#)
            try await db.execute(#"CREATE TABLE "a.b".c(id INTEGER)"#)
            try await db.execute(#"CREATE TABLE a."b.c"(id INTEGER)"#)
            try await db.installChangeNotifications(on: ["c"], schema: "a.b")
            try await db.installChangeNotifications(on: ["b.c"], schema: "a")
            let events = Subscriber(ChangeListener.shared(for: db.configuration))
            defer { events.cancel() }
            #expect(try await events.next() == .listening)
            try await withWriter(db) { writer in
                try await writer.execute(#"INSERT INTO a."b.c" VALUES (1)"#)
                #expect(try await events.next() == .changed(schema: "a", table: "b.c"))
                try await writer.execute(#"INSERT INTO "a.b".c VALUES (1)"#)
                #expect(try await events.next() == .changed(schema: "a.b", table: "c"))
            }
        }
    }

    @Test func aPayloadIsReadExactlyOrAsASchemaChange() {
        #expect(ChangeListener.event(payload: #""a""b"."c.d""#) == .changed(schema: #"a"b"#, table: "c.d"))
        #expect(
            ChangeListener.event(payload: "\"e\u{301}\".\"\"\"\u{301}\"")
                == .changed(schema: "e\u{301}", table: "\"\u{301}"))
        // Unquoted as `regclass` leaves a name: lowercase ASCII letters, digits and underscores.
        #expect(
            ChangeListener.event(payload: #"public."Posts" {"o":[],"n":[]}"#)
                == .changed(schema: "public", table: "Posts", rows: RowImages(old: [], new: [])))
        #expect(ChangeListener.event(payload: #""My".t_1"#) == .changed(schema: "My", table: "t_1"))
        // An older trigger's payload names no schema: anything may have changed. So do a
        // table's OID, which `regclass` leaves when no table has it, and its "-" for OID 0.
        for payload in [
            "items", "schema", #""a""#, #""a"."b"x"#, #""a"."#, #""a"b"#, "", "12345 {}", "- {}", "1a.b", "a.B",
            "a.b-c",
            "a.b.c",
        ] {
            #expect(ChangeListener.event(payload: payload) == .schemaChanged, "\(payload)")
        }
    }

    @Test func aSchemaChangeIsNotified() async throws {
        try await TestServer.withDatabase { db in
            try await db.execute("CREATE TABLE items(id INTEGER PRIMARY KEY)")
            try await db.installChangeNotifications(on: ["items"])
            #expect(try await db.followsSchemaChanges())
            let events = Subscriber(ChangeListener.shared(for: db.configuration))
            defer { events.cancel() }
            #expect(try await events.next() == .listening)
            try await withWriter(db) { writer in
                try await writer.execute("CREATE TABLE later(id INTEGER)")
                #expect(try await events.next() == .schemaChanged)
                try await writer.execute("DROP TABLE later")
                #expect(try await events.next() == .schemaChanged)
                try await writer.execute("INSERT INTO items VALUES (1)")
                #expect(try await events.next() == .changed(schema: "public", table: "items"))
            }
        }
    }

    @Test func aLateSubscriberHearsListeningBeforeSubscribeReturns() async throws {
        try await TestServer.withDatabase { db in
            try await db.execute("CREATE TABLE items(id INTEGER PRIMARY KEY)")
            try await db.installChangeNotifications(on: ["items"])
            let listener = ChangeListener.shared(for: db.configuration)
            #expect(ChangeListener.shared(for: db.configuration) === listener)
            let first = Subscriber(listener)
            defer { first.cancel() }
            #expect(try await first.next() == .listening)

            let heard = Lock<[Event]>([])
            let second = listener.subscribe { event in heard.withLock { $0.append(event) } }
            defer { second.cancel() }
            #expect(heard.withLock { $0 } == [.listening])
        }
    }

    @Test func aTerminatedBackendIsReportedThenReplaced() async throws {
        try await TestServer.withDatabase { db in
            try await db.execute("CREATE TABLE items(id INTEGER PRIMARY KEY)")
            try await db.installChangeNotifications(on: ["items"])
            let events = Subscriber(ChangeListener.shared(for: db.configuration))
            defer { events.cancel() }
            #expect(try await events.next() == .listening)

            let terminated = try await db.fetchOne(
                """
                SELECT count(pg_terminate_backend(pid)) AS n FROM pg_stat_activity
                WHERE datname = current_database() AND application_name = $1
                """,
                [.text(ChangeListener.applicationName)])
            #expect(try terminated?["n"] == 1)
            let lost = try await events.next()
            guard case .lost(let error) = lost else {
                Issue.record("expected .lost, got \(lost)")
                return
            }
            #expect(error.kind == .connectionClosed)
            #expect(error.message.contains("listening connection"))
            // The reason is the server's FATAL message, or only the closed socket when the driver
            // sees the close first, as it did under load.
            #expect(
                error.message.contains("terminating connection due to administrator command")
                    || error.message.contains("(serverClosedConnection)"), "\(error.message)")
            #expect(try await events.next() == .listening)

            try await withWriter(db) { writer in
                try await writer.execute("INSERT INTO items VALUES (1)")
                #expect(try await events.next() == .changed(schema: "public", table: "items"))
            }
        }
    }

    @Test func aServerRestartIsReportedThenRecovered() async throws {
        try await TestCluster.with { cluster in
            let configuration = try await cluster.makeConfiguration()
            let db = try await PostgreSQLDatabase(configuration)
            do {
                try await db.execute("CREATE TABLE items(id INTEGER PRIMARY KEY)")
                try await db.installChangeNotifications(on: ["items"])
                await db.close()
            } catch {
                await db.close()
                throw error
            }
            let events = Subscriber(ChangeListener.shared(for: configuration))
            defer { events.cancel() }
            #expect(try await events.next() == .listening)

            try await cluster.stop()
            let lost = try await events.next()
            guard case .lost(let error) = lost else {
                Issue.record("expected .lost, got \(lost)")
                return
            }
            #expect(error.kind == .connectionClosed)
            #expect(error.message.contains("listening connection"))
            try await cluster.startAgain()
            // Failed attempts while the server was down reported nothing more.
            #expect(try await events.next() == .listening)

            let writer = try await PostgreSQLDatabase(configuration)
            do {
                try await writer.execute("INSERT INTO items VALUES (1)")
                #expect(try await events.next() == .changed(schema: "public", table: "items"))
                await writer.close()
            } catch {
                await writer.close()
                throw error
            }
        }
    }

    @Test func aListenerStartedWhileTheServerIsDownListensOnceItIsUp() async throws {
        try await TestCluster.with { cluster in
            let configuration = try await cluster.makeConfiguration()
            try await cluster.stop()
            let events = Subscriber(ChangeListener.shared(for: configuration))
            defer { events.cancel() }
            let lost = try await events.next()
            guard case .lost(let error) = lost else {
                Issue.record("expected .lost, got \(lost)")
                return
            }
            #expect(error.kind == .connectionFailed)
            try await cluster.startAgain()
            #expect(try await events.next() == .listening)
        }
    }

    @Test func theLastCancellationClosesTheConnection() async throws {
        try await TestServer.withDatabase { db in
            try await db.execute("CREATE TABLE items(id INTEGER PRIMARY KEY)")
            try await db.installChangeNotifications(on: ["items"])
            let listener = ChangeListener.shared(for: db.configuration)
            let first = Subscriber(listener)
            let second = Subscriber(listener)
            #expect(try await first.next() == .listening)
            #expect(try await second.next() == .listening)
            #expect(try await listeningBackends(db) == 1)

            first.cancel()
            try await withWriter(db) { writer in
                try await writer.execute("INSERT INTO items VALUES (1)")
                #expect(try await second.next() == .changed(schema: "public", table: "items"))
            }
            #expect(try await listeningBackends(db) == 1)

            second.cancel()
            try await TestServer.until("the listening connection closes after the last cancellation") {
                try await listeningBackends(db) == 0
            }
            // A later subscriber starts afresh.
            let fresh = ChangeListener.shared(for: db.configuration)
            #expect(fresh !== listener)
            let third = Subscriber(fresh)
            defer { third.cancel() }
            #expect(try await third.next() == .listening)
        }
    }

    /// The listening connections to `db`'s database.
    private func listeningBackends(_ db: PostgreSQLDatabase) async throws -> Int {
        let row = try await db.fetchOne(
            "SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1",
            [.text(ChangeListener.applicationName)])
        return try row?["n"] ?? 0
    }

    /// Runs `body` with a second connection to `db`'s database, closed afterwards.
    private func withWriter(_ db: PostgreSQLDatabase, _ body: (PostgreSQLDatabase) async throws -> Void) async throws {
        let writer = try await PostgreSQLDatabase(db.configuration)
        do {
            try await body(writer)
            await writer.close()
        } catch {
            await writer.close()
            throw error
        }
    }
}

/// A subscription whose events a test awaits one by one, each within a time limit.
private final class Subscriber {
    private enum Item: Sendable {
        case event(ChangeListener.Event)
        case timeout(Int)
    }

    private let continuation: AsyncStream<Item>.Continuation
    private var iterator: AsyncStream<Item>.AsyncIterator
    private let subscription: ChangeListener.Subscription
    private var waits = 0

    init(_ listener: ChangeListener) {
        let (stream, continuation) = AsyncStream.makeStream(of: Item.self)
        self.continuation = continuation
        iterator = stream.makeAsyncIterator()
        subscription = listener.subscribe { continuation.yield(.event($0)) }
    }

    /// The next event, without the rows a change carries unless `keepingRows`, or a thrown error
    /// when none comes within `limit`.
    func next(within limit: Duration = .seconds(10), keepingRows: Bool = false) async throws -> ChangeListener.Event {
        waits += 1
        let wait = waits
        let continuation = continuation
        let timer = Task {
            try await Task.sleep(for: limit)
            continuation.yield(.timeout(wait))
        }
        defer { timer.cancel() }
        while let item = await iterator.next() {
            switch item {
            case .event(.changed(let schema, let table, _)) where !keepingRows:
                return .changed(schema: schema, table: table)
            case .event(let event): return event
            case .timeout(wait): throw TestServerError("no event within \(limit)")
            case .timeout: continue
            }
        }
        throw TestServerError("the event stream ended")
    }

    func cancel() {
        subscription.cancel()
        continuation.finish()
    }
}
