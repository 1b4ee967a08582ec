import LiveValueTesting
import PostgreSQLTestServer
import Testing

@testable import PostgreSQL

/// Opens when told to; waiters wait until then.
private final class Gate: Sendable {
    private let stream: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation

    init() {
        (stream, continuation) = AsyncStream<Void>.makeStream()
    }

    func open() { continuation.finish() }

    func wait() async {
        for await _ in stream {}
    }
}

/// The change log that the triggers write and the listeners read: a commit that woke no
/// listener is read all the same, whatever the order of ids and commits.
@Suite(.postgreSQLInstalled, .timeLimit(.minutes(1)))
struct ChangeLogTests {
    @Test func aCommitThatWokeNoListenerIsReadEvenBehindALaterRecord() async throws {
        try await TestServer.withDatabase { db in
            try await db.execute("CREATE TABLE items(id INTEGER PRIMARY KEY)")
            try await db.installChangeNotifications(on: ["items"])
            let reader = try await PostgreSQLDatabase(db.configuration)
            @SharedReader(.fetchAll("SELECT id FROM items ORDER BY id", database: reader)) var ids: [Int]
            try await $ids.load()

            // C inserts first and holds the wake-up lock until it commits; B inserts meanwhile, so
            // it wakes no one, with the next id; D, after C, wakes the listeners with a later id,
            // which they read while B is still in progress.
            let (cInserted, cMayCommit, bInserted, bMayCommit) = (Gate(), Gate(), Gate(), Gate())
            async let c: Void = db.transaction { tx in
                try await tx.execute("INSERT INTO items VALUES (1)")
                cInserted.open()
                await cMayCommit.wait()
            }
            await cInserted.wait()
            async let b: Void = db.transaction { tx in
                try await tx.execute("INSERT INTO items VALUES (2)")
                bInserted.open()
                await bMayCommit.wait()
            }
            await bInserted.wait()
            cMayCommit.open()
            try await c
            try await db.execute("INSERT INTO items VALUES (3)")
            try await value(of: $ids) { $0 == [1, 3] }
            let visible = try await db.fetchAll("SELECT payload FROM live_query.changes").count
            #expect(visible == 2, "B's record shows only once B commits")

            bMayCommit.open()
            try await b
            try await value(of: $ids) { $0 == [1, 2, 3] }
            // B's record sits between the other two, behind D's, which the listeners read first.
            let records = try await db.fetchAll("SELECT payload FROM live_query.changes ORDER BY id")
                .map { try $0["payload"] as String }
            #expect(records.count == 3)
            #expect(records.firstIndex { $0.contains("\"id\":2") } == 1, "\(records)")
            await reader.close()
        }
    }

    @Test func onlyOneTransactionAtATimeNotifies() async throws {
        try await TestServer.withDatabase { db in
            try await db.execute("CREATE TABLE items(id INTEGER PRIMARY KEY)")
            try await db.installChangeNotifications(on: ["items"])
            let (firstInserted, firstMayCommit) = (Gate(), Gate())
            async let first: Void = db.transaction { tx in
                try await tx.execute("INSERT INTO items VALUES (1)")
                firstInserted.open()
                await firstMayCommit.wait()
            }
            await firstInserted.wait()
            let woke: Bool = try await db.transaction { tx in
                try await tx.execute("INSERT INTO items VALUES (2)")
                // The trigger took the lock, or left it to the first transaction.
                let held = try await tx.fetchOne(
                    """
                    SELECT count(*) AS n FROM pg_locks
                    WHERE locktype = 'advisory' AND pid = pg_backend_pid() AND granted
                    """)
                return try held?["n"] as Int? ?? 0 > 0
            }
            #expect(!woke, "a second writer took the wake-up lock the first one holds")
            firstMayCommit.open()
            try await first
        }
    }

    @Test func aRecordIsTheTablesOIDAndTheRowWhateverItsColumnsAreCalled() async throws {
        try await TestServer.withDatabase { db in
            // Names the trigger function uses itself.
            try await db.execute(
                "CREATE TABLE odd(r INTEGER, name TEXT, relation TEXT, live_query_row INTEGER, tg_relid INTEGER)")
            try await db.installChangeNotifications(on: ["odd"])
            try await db.execute("INSERT INTO odd VALUES (1, 'n', 'rel', 2, 3)")
            let oid = try #require(try await db.fetchOne("SELECT 'odd'::regclass::oid::int8 AS oid"))["oid"] as Int64
            let records = try await db.fetchAll("SELECT payload FROM live_query.changes").map {
                try $0["payload"] as String
            }
            #expect(
                records == [
                    #"\#(oid) {"n":[{"r":1,"name":"n","relation":"rel","live_query_row":2,"tg_relid":3}],"o":[]}"#
                ])
        }
    }

    @Test func aReadMakesOneEventPerTable() {
        func record(_ table: String, _ users: [Int]?) -> String {
            let rows = users.map {
                " {\"o\":[],\"n\":[" + $0.map { "{\"user_id\":\($0)}" }.joined(separator: ",") + "]}"
            }
            return "s.\(table)" + (rows ?? "")
        }
        func changed(_ table: String, _ users: [Int]?) -> ChangeListener.Event {
            ChangeListener.event(payload: record(table, users))
        }
        #expect(
            ChangeListener.events(of: [record("t", [1]), record("u", [3]), record("t", [2])])
                == [changed("t", [1, 2]), changed("u", [3])])
        // A record of the table alone says any row; one of no table now, a schema change.
        #expect(
            ChangeListener.events(of: [record("t", [1]), record("t", nil), record("t", [2])]) == [changed("t", nil)])
        #expect(ChangeListener.events(of: [record("t", [1]), nil]) == [.schemaChanged, changed("t", [1])])
    }

    @Test func aSnapshotIsReadAsNumbersOnly() throws {
        #expect(try ChangeLogCursor.parse("795:799:795,797") == ["795", "797"])
        #expect(try ChangeLogCursor.parse("800:800:") == [])
        for bad in ["795:799:795,7a", "795:799", "1:2:3,,4", ":5:", "1:2:3,", "x:2:"] {
            #expect(throws: PostgreSQLError.self, "\(bad)") { try ChangeLogCursor.parse(bad) }
        }
    }
}
