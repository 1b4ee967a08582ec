import Foundation
import Observation
import PostgreSQL
import SQLite
import SharingSQLite
import Synchronization

// Readers × instances fan-out (FanOutMeasure.swift runs it): live inboxes, each of its own
// user's messages, spread over several instances (processes), and writes that concern few of
// them. What the instances hold, and how they report what their inboxes hold.

/// One message of an inbox: its id, and the revision that the large UPDATE sets.
struct InboxMessage: FetchableRow, Equatable, Sendable {
    var id: Int64
    var revision: Int

    init(row: BorrowedRow) throws {
        id = try row[0]
        revision = try row[1]
    }
}

/// The inbox of user `user`: their messages, in order of id.
struct Inbox: FetchKeyRequest {
    var user: Int

    func fetch(_ db: any SQLConnection) throws -> [InboxMessage] {
        try Table("messages").select(Column("id"), Column("revision")).filter(Column("user_id") == user)
            .sort(Column("id")).asRequest(of: InboxMessage.self).fetchAll(db)
    }
}

/// The inboxes one instance holds: a `SharedReader` of `Inbox` per user, each reporting the
/// newest message id it holds to an `Arrivals` of its own, and the highest revision it holds to
/// `revisions`, as its member.
final class Inboxes: Sendable {
    /// The most inboxes loading at once: the engine reads the fetches of concurrent loads in
    /// shared rounds, so a few hundred keep it busy without holding thousands of tasks.
    static let loadsInFlight = 256

    private let readers: Mutex<[SharedReader<[InboxMessage]>]>
    private let arrivals: [Int: Arrivals]
    /// Every inbox, member i being the inbox of the i-th user loaded.
    let revisions: Arrivals

    /// Loads an inbox per user of `users`, concurrently.
    init(database: PostgreSQLDatabase, users: [Int]) async throws {
        let readers = try await withThrowingTaskGroup(of: (Int, SharedReader<[InboxMessage]>).self) { group in
            var loaded = [SharedReader<[InboxMessage]>?](repeating: nil, count: users.count)
            for (index, user) in users.enumerated() {
                if index >= Self.loadsInFlight, let next = try await group.next() { loaded[next.0] = next.1 }
                group.addTask {
                    let reader = try await SharedReader<[InboxMessage]>(
                        loading: .fetch(Inbox(user: user), database: database))
                    return (index, reader)
                }
            }
            for try await (done, reader) in group { loaded[done] = reader }
            return loaded.compactMap { $0 }
        }
        let revisions = Arrivals(count: users.count)
        var arrivals: [Int: Arrivals] = [:]
        for (member, (user, reader)) in zip(users, readers).enumerated() {
            let newest = Arrivals(count: 1)
            arrivals[user] = newest
            watchInbox(reader, newest: newest, revisions: revisions, member: member)
        }
        self.readers = Mutex(readers)
        self.arrivals = arrivals
        self.revisions = revisions
    }

    /// What `user`'s inbox reports its newest message to, or nil when this instance does not
    /// hold it.
    func arrivals(of user: Int) -> Arrivals? { arrivals[user] }

    func stop() { readers.withLock { $0 = [] } }
}

/// Reports the newest id `reader` holds (its last, the ids being sorted) to `newest`, and the
/// highest revision it holds to `revisions` as `member`, whenever its value changes, from the
/// Observation callback itself.
func watchInbox(_ reader: SharedReader<[InboxMessage]>, newest: Arrivals, revisions: Arrivals, member: Int) {
    @Sendable func report(_ messages: [InboxMessage]) {
        let now = monotonicNanoseconds()
        newest.report(0, value: Int(messages.last?.id ?? -1), at: now)
        revisions.report(member, value: messages.map(\.revision).max() ?? -1, at: now)
    }
    let value = withObservationTracking {
        reader.wrappedValue
    } onChange: { [weak reader] in
        guard let reader else { return }
        report(reader.wrappedValue)
        watchInbox(reader, newest: newest, revisions: revisions, member: member)
    }
    // As in `watch`: a change between the read and the start of tracking is reported here.
    report(value)
}

/// SplitMix64: the same users in every run.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// The server's counts that the fan-out measure reads: the calls of the inboxes' query since the
/// last reset of `pg_stat_statements`, and the client backends other than this one that are
/// not idle.
struct ServerActivity: Equatable {
    let readerCalls: Int
    let busy: Int

    /// The inboxes' statements: selects that name the table `messages` (the writes are inserts;
    /// the statement reading this, which names `pg_stat_statements`, is left out).
    static let readerFilter =
        "query ILIKE 'select%' AND position('messages' in query) > 0 AND position('pg_stat_statements' in query) = 0"

    init(_ db: PostgreSQLDatabase) async throws {
        let row = try await db.fetchOne(
            """
            SELECT (SELECT coalesce(sum(calls), 0)::bigint FROM pg_stat_statements WHERE \(Self.readerFilter)),
                (SELECT count(*) FROM pg_stat_activity
                 WHERE backend_type = 'client backend' AND state <> 'idle' AND pid <> pg_backend_pid())
            """)
        guard let row else { throw BenchmarkError("pg_stat_statements returned no row") }
        readerCalls = try row[0]
        busy = try row[1]
    }
}

/// Waits until the instances are quiet: no other client backend busy, and the inboxes' query
/// count unchanged for `window`. Returns that count; throws after 20 s.
func waitQuiet(_ db: PostgreSQLDatabase, window: Duration = .milliseconds(200)) async throws -> Int {
    let clock = ContinuousClock()
    let deadline = clock.now + .seconds(20)
    var last = try await ServerActivity(db)
    var since = clock.now
    while true {
        try await Task.sleep(for: .milliseconds(10))
        let now = try await ServerActivity(db)
        if now != last {
            last = now
            since = clock.now
        } else if now.busy == 0, clock.now - since >= window {
            return now.readerCalls
        }
        guard clock.now < deadline else { throw BenchmarkError("the instances were not quiet within 20 s") }
    }
}

/// The package's listening connections (one per process with live values) that have run
/// `LISTEN`: their last statement is `LISTEN`, or a read of the change log, which follows it.
func listeners(_ db: PostgreSQLDatabase) async throws -> Int {
    let row = try await db.fetchOne(
        """
        SELECT count(*) FROM pg_stat_activity
        WHERE application_name = 'live_query_listener'
            AND (query ILIKE 'listen%' OR position('live_query.' in query) > 0)
        """)
    return try row.map { try $0[0] } ?? 0
}

/// Waits until exactly `count` listening connections have run `LISTEN`, for at most 20 s: before
/// an instance's has, a write's notification could not reach it.
func waitForListeners(_ db: PostgreSQLDatabase, _ count: Int) async throws {
    let clock = ContinuousClock()
    let deadline = clock.now + .seconds(20)
    while try await listeners(db) != count {
        guard clock.now < deadline else {
            throw BenchmarkError("not \(count) processes listening within 20 s")
        }
        try await Task.sleep(for: .milliseconds(10))
    }
}
