import Locking
import PostgresNIO

/// The changes of a database, on one listening connection per process per server, database and
/// user, shared by every subscriber: the records of the change log
/// (``PostgreSQLDatabase/changeLog``) that the notifications of
/// ``PostgreSQLDatabase/changeChannel`` announce, and the notifications that carry a change
/// themselves (schema changes, and the triggers of earlier versions).
///
/// The first subscription starts a task that connects, runs `LISTEN`, takes its place at the
/// log's end, delivers ``Event/listening`` and then ``Event/changed(schema:table:rows:)`` or
/// ``Event/schemaChanged`` for each change.
/// When the connection drops, it delivers ``Event/lost(_:)`` once and reconnects, waiting 20 ms,
/// then twice as long after each failed attempt, up to 1 s; once listening again it delivers
/// ``Event/listening``. Notifications sent while no connection listened are not delivered: treat
/// `.listening` after `.lost` as "anything may have changed", schemas included. Cancelling the
/// last subscription stops the task, closes the connection, and removes the listener from the
/// shared ones, so that the next subscriber starts afresh.
///
/// Each subscriber receives its events one at a time, in the order the listener produced them,
/// never with a lock held; handlers run on the listener's task (or, for the first event of a new
/// subscriber, on the thread that subscribes) and must be cheap.
final class ChangeListener: Sendable {
    /// What a subscriber is told.
    enum Event: Sendable, Equatable {
        /// `LISTEN` is active: every change committed from now on is notified.
        case listening
        /// A statement changed table `table` of schema `schema`: the rows of `rows` when the
        /// notification carried them, any row when it is nil.
        case changed(schema: String, table: String, rows: RowImages? = nil)
        /// A DDL statement committed (when the event triggers of
        /// ``PostgreSQLDatabase/schemaChangeNotificationSQL`` are installed): any SQL may now
        /// read other tables, and any value may have changed. A payload this version does not
        /// know (a trigger of an older one, naming a table without its schema) means the same.
        case schemaChanged
        /// The listening connection was lost (kind ``PostgreSQLError/Kind/connectionClosed``),
        /// could not be made in the first place (kind ``PostgreSQLError/Kind/connectionFailed``),
        /// or the server refused it `LISTEN` or the change log (kind
        /// ``PostgreSQLError/Kind/server``, with the server's code: a role without access to the
        /// log); the listener keeps reconnecting, and delivers ``listening`` once it succeeds.
        /// Changes in between are not notified.
        case lost(PostgreSQLError)

        static func == (lhs: Event, rhs: Event) -> Bool {
            switch (lhs, rhs) {
            case (.listening, .listening): true
            case (.changed(let leftSchema, let left, let leftRows), .changed(let rightSchema, let right, let rightRows)):
                leftSchema == rightSchema && left == right && leftRows == rightRows
            case (.schemaChanged, .schemaChanged): true
            case (.lost(let left), .lost(let right)):
                left.kind == right.kind && left.sqlState == right.sqlState && left.message == right.message
                    && left.detail == right.detail && left.hint == right.hint && left.sql == right.sql
            default: false
            }
        }
    }

    /// The `application_name` of the listening connections, as `pg_stat_activity` shows it.
    static let applicationName = "live_query_listener"

    /// Where the listener connects: one listener per key.
    private struct Key: Hashable {
        let address: PostgreSQLDatabase.Configuration.Address
        let user: String
        let database: String
    }

    /// The shared listeners.
    private static let registry = Lock<[Key: ChangeListener]>([:])

    /// Where the connection is, for errors and the registry.
    private let configuration: PostgreSQLDatabase.Configuration
    private let key: Key
    private let state = Lock(State())

    private struct State {
        var subscribers: [Int: Mailbox] = [:]
        var nextID = 0
        /// The running task, while there are subscribers.
        var task: Task<Void, Never>?
        /// Counts the tasks started, so that a stopped task's last events go nowhere.
        var generation = 0
        var phase = Phase.connecting
    }

    private enum Phase {
        case connecting
        case listening
        case lost(PostgreSQLError)
    }

    private init(configuration: PostgreSQLDatabase.Configuration, key: Key) {
        self.configuration = configuration
        self.key = key
    }

    /// The listener of `configuration`'s server, database and user, made on first use.
    static func shared(for configuration: PostgreSQLDatabase.Configuration) -> ChangeListener {
        let key = Key(address: configuration.address, user: configuration.user, database: configuration.database)
        return registry.withLock { listeners in
            if let listener = listeners[key] { return listener }
            let listener = ChangeListener(configuration: configuration, key: key)
            listeners[key] = listener
            return listener
        }
    }

    /// Registers `handler` until the returned subscription is cancelled or deinitialized.
    ///
    /// When `LISTEN` is already active, `handler` receives ``Event/listening`` synchronously,
    /// on the calling thread, before this returns (so do not hold a lock that `handler` takes);
    /// during an outage it receives the ``Event/lost(_:)`` that began it, likewise. Otherwise
    /// its first event comes from the listener's task once `LISTEN` is active.
    func subscribe(_ handler: @escaping @Sendable (Event) -> Void) -> Subscription {
        let mailbox = Mailbox(handler)
        let (id, drains): (Int, Bool) = state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            state.subscribers[id] = mailbox
            if state.task == nil {
                state.generation += 1
                state.phase = .connecting
                let generation = state.generation
                state.task = Task { [self] in await run(generation: generation) }
            }
            // Queued under the state lock, so that no event of the task can come before it.
            switch state.phase {
            case .connecting: return (id, false)
            case .listening: return (id, mailbox.post(.listening))
            case .lost(let error): return (id, mailbox.post(.lost(error)))
            }
        }
        // A listener stopped since `shared(for:)` returned it is one again.
        Self.registry.withLock { listeners in
            if listeners[key] == nil { listeners[key] = self }
        }
        if drains { mailbox.drain() }
        return Subscription(listener: self, id: id)
    }

    /// Ends subscription `id`; the last one stops the task.
    private func unsubscribe(_ id: Int) {
        // The registry's lock, then the state's, as `shared(for:)` and `subscribe(_:)` never
        // hold both: a subscriber that comes meanwhile either keeps the task or registers anew.
        let task: Task<Void, Never>? = Self.registry.withLock { listeners in
            let task: Task<Void, Never>? = state.withLock { state in
                state.subscribers[id]?.close()
                state.subscribers[id] = nil
                guard state.subscribers.isEmpty, let task = state.task else { return nil }
                state.task = nil
                state.phase = .connecting
                return task
            }
            if task != nil, listeners[key] === self { listeners[key] = nil }
            return task
        }
        task?.cancel()
    }

    /// Posts `event` to every subscriber, unless the task of `generation` has been stopped, and
    /// delivers it to those whose mailbox no other thread is emptying.
    private func broadcast(_ event: Event, generation: Int) {
        let mailboxes: [Mailbox] = state.withLock { state in
            guard state.generation == generation, state.task != nil else { return [] }
            switch event {
            case .listening: state.phase = .listening
            case .lost(let error): state.phase = .lost(error)
            case .changed, .schemaChanged: break
            }
            return state.subscribers.values.filter { $0.post(event) }
        }
        for mailbox in mailboxes { mailbox.drain() }
    }

    /// Connects, listens and reconnects until cancelled.
    private func run(generation: Int) async {
        let server = configuration.serverDescription
        var delay = Duration.milliseconds(20)
        var hasListened = false
        /// Whether the current outage has been reported.
        var reported = false
        while !Task.isCancelled {
            var failure: (any Error)?
            do {
                var options = try configuration.connectionConfiguration()
                options.options.additionalStartupParameters.append(("application_name", Self.applicationName))
                // The log's reads name tables with their schemas (ChangeLogCursor.read).
                options.options.additionalStartupParameters.append(("search_path", "pg_catalog"))
                let connection = try await PostgresConnection.connect(
                    configuration: options, id: 0, logger: Session.logger)
                do {
                    try await withTaskCancellationHandler {
                        try await connection.listen(on: PostgreSQLDatabase.changeChannel) { notifications in
                            let session = Session(connection: connection, server: server)
                            // Its place in the log is taken after LISTEN, so that no wake-up is missed.
                            let cursor = try await ChangeLogCursor.start(on: session)
                            hasListened = true
                            reported = false
                            delay = .milliseconds(20)
                            broadcast(.listening, generation: generation)
                            try await follow(
                                notifications, log: cursor, session: session, generation: generation)
                        }
                    } onCancel: {
                        connection.close().whenComplete { _ in }
                    }
                } catch {
                    failure = error
                }
                try? await connection.close()
            } catch {
                failure = error
            }
            if Task.isCancelled { break }
            if !reported {
                reported = true
                let detail = Self.reason(failure)
                let error =
                    if let refusal = failure as? PostgreSQLError, refusal.kind == .server, !refusal.endsTheSession,
                        refusal.sqlState?.hasPrefix("08") != true
                    {
                        PostgreSQLError(
                            kind: .server, sqlState: refusal.sqlState,
                            message:
                                "the change log of \(server) cannot be read as role \(configuration.user) "
                                + "(\(refusal.message)), so live values cannot follow its changes"
                                + (refusal.sqlState == "42501"
                                    ? ": a reader needs USAGE on the schema live_query and SELECT on "
                                        + "\(PostgreSQLDatabase.readableChangeLog), which an install grants to every role"
                                    : ""),
                            detail: refusal.detail, hint: refusal.hint, sql: refusal.sql)
                    } else if hasListened {
                        PostgreSQLError(
                            kind: .connectionClosed,
                            message:
                                "the listening connection to \(server) was lost (\(detail)); it reconnects, and "
                                + "changes until then are not notified")
                    } else {
                        PostgreSQLError(
                            kind: .connectionFailed,
                            message: "the listening connection to \(server) could not be made (\(detail)); it retries")
                    }
                broadcast(.lost(error), generation: generation)
            }
            do {
                try await Task.sleep(for: delay)
            } catch {
                break
            }
            delay = min(delay * 2, .seconds(1))
        }
    }

    /// Delivers the changes of `notifications` and of the change log until the connection
    /// ends: a notification's payload, or the records of the log that an empty payload (a
    /// change trigger's wake-up) announces.
    ///
    /// The log is read at each wake-up; again soon while transactions that were in progress at
    /// the last read may still commit records whose writers did not wake anyone (at 5 ms, then
    /// twice as long while the same ones stay in progress, up to 250 ms); and every 250 ms
    /// anyway, which also finds a log created after the listener started.
    private func follow(
        _ notifications: PostgresNotificationSequence, log: ChangeLogCursor?, session: Session, generation: Int
    ) async throws {
        let doorbell = Doorbell()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { [self] in
                for try await notification in notifications {
                    if notification.payload.isEmpty {
                        doorbell.ring()
                    } else {
                        broadcast(Self.event(payload: notification.payload), generation: generation)
                    }
                }
            }
            group.addTask { [self] in
                try await withTaskCancellationHandler {
                    var log = log
                    var pause = Duration.milliseconds(250)
                    while !Task.isCancelled {
                        await doorbell.wait(atMost: pause)
                        if Task.isCancelled { return }
                        guard var cursor = log else {
                            // No log yet: an install since the listener started makes one, and
                            // what it recorded before this read is not known.
                            log = try await ChangeLogCursor.start(on: session)
                            if log != nil { broadcast(.schemaChanged, generation: generation) }
                            continue
                        }
                        let before = cursor.inProgress
                        let stalled = ContinuousClock.now - cursor.lastRead > ChangeLogCursor.retention / 2
                        do {
                            for event in Self.events(of: try await cursor.read(on: session)) {
                                broadcast(event, generation: generation)
                            }
                        } catch is ChangeLogCursor.LogReplaced {
                            log = try await ChangeLogCursor.start(on: session)
                            broadcast(.schemaChanged, generation: generation)
                            continue
                        }
                        // Records may have been pruned before a stalled listener read them.
                        if stalled { broadcast(.schemaChanged, generation: generation) }
                        await cursor.pruneIfDue(on: session)
                        if cursor.inProgress.isEmpty {
                            pause = .milliseconds(250)
                        } else if cursor.inProgress != before {
                            pause = .milliseconds(5)
                        } else {
                            pause = min(pause * 2, .milliseconds(250))
                        }
                        log = cursor
                    }
                } onCancel: {
                    doorbell.ring()
                }
            }
            // The first to end ends both: the notifications when the connection closes, the
            // reads when a statement fails.
            try await group.next()
            group.cancelAll()
        }
    }

    /// The events of one read of the change log (``ChangeLogCursor/read(on:)``): one per table,
    /// with the rows of all its records, or with none (any row) when one of them carries none. A
    /// record whose table is gone is a schema change.
    static func events(of payloads: [String?]) -> [Event] {
        struct Table: Hashable {
            let schema: String
            let table: String
        }
        // In the order of each table's first record; nil rows mean any row of the table.
        var changes: [(table: Table, rows: RowImages?)] = []
        var position: [Table: Int] = [:]
        var schemaChanged = false
        for payload in payloads {
            guard let payload, case .changed(let schema, let table, let rows) = event(payload: payload) else {
                schemaChanged = true
                continue
            }
            let key = Table(schema: schema, table: table)
            guard let index = position[key] else {
                position[key] = changes.count
                changes.append((key, rows))
                continue
            }
            if let rows, var merged = changes[index].rows {
                merged.old += rows.old
                merged.new += rows.new
                changes[index].rows = merged
            } else {
                changes[index].rows = nil
            }
        }
        // A schema change first: it refetches everything, in the same round as the rest.
        return (schemaChanged ? [.schemaChanged] : [])
            + changes.map { .changed(schema: $0.table.schema, table: $0.table.table, rows: $0.rows) }
    }

    /// The event of a notification's payload: `"schema"."table"` as the change triggers send it,
    /// or with either part unquoted when `regclass` leaves it so (a lowercase ASCII letter or
    /// underscore, then those or digits), optionally followed by a space and the changed rows
    /// as JSON (see ``PostgreSQLDatabase/changeChannel``); or anything else, which may be a
    /// schema change.
    ///
    /// Any role may notify the channel: rows that cannot be read exactly make the change one of
    /// the whole table.
    static func event(payload: String) -> Event {
        // Scalar by scalar: a quote followed by a combining mark is one `Character`.
        var rest = Substring(payload).unicodeScalars
        /// The quoted identifier at the start of `rest`, which it drops.
        func identifier() -> String? {
            func isUnquoted(_ scalar: Unicode.Scalar, first: Bool) -> Bool {
                ("a"..."z").contains(scalar) || scalar == "_" || (!first && ("0"..."9").contains(scalar))
            }
            if let first = rest.first, isUnquoted(first, first: true) {
                var name = String.UnicodeScalarView()
                while let scalar = rest.first, isUnquoted(scalar, first: false) {
                    name.append(rest.removeFirst())
                }
                return String(name)
            }
            guard rest.first == "\"" else { return nil }
            rest.removeFirst()
            var name = String.UnicodeScalarView()
            while let scalar = rest.first {
                rest.removeFirst()
                if scalar != "\"" {
                    name.append(scalar)
                } else if rest.first == "\"" {
                    rest.removeFirst()
                    name.append(scalar)
                } else {
                    return String(name)
                }
            }
            return nil
        }
        guard let schema = identifier(), rest.first == "." else { return .schemaChanged }
        rest.removeFirst()
        guard let table = identifier() else { return .schemaChanged }
        if rest.isEmpty { return .changed(schema: schema, table: table) }
        guard rest.first == " " else { return .schemaChanged }
        rest.removeFirst()
        return .changed(schema: schema, table: table, rows: RowImages.parse(Substring(rest).utf8))
    }

    /// Why the connection failed or was lost, in a few words: the server's message (such as
    /// "terminating connection due to administrator command"), or PostgresNIO's code and cause.
    private static func reason(_ error: (any Error)?) -> String {
        guard let error else { return "closed" }
        guard let error = error as? PSQLError else { return String(describing: error) }
        if let message = error.serverInfo?[.message] { return message }
        return error.underlying.map { "\(error.code): \($0)" } ?? "\(error.code)"
    }

    /// Keeps a subscription alive: cancel it, or let it go, to stop receiving events.
    final class Subscription: Sendable {
        private let listener: ChangeListener
        private let id: Int
        private let cancelled = Lock(false)

        fileprivate init(listener: ChangeListener, id: Int) {
            self.listener = listener
            self.id = id
        }

        /// Stops the events: none starts being delivered after this returns (one being
        /// delivered on another thread may still finish). Cancelling again does nothing.
        func cancel() {
            let first = cancelled.withLock { cancelled in
                defer { cancelled = true }
                return !cancelled
            }
            if first { listener.unsubscribe(id) }
        }

        deinit { cancel() }
    }

    /// One subscriber's events, delivered in order, one at a time, by whichever thread finds
    /// the mailbox idle when it posts.
    private final class Mailbox: Sendable {
        private let handler: @Sendable (Event) -> Void
        private let state = Lock<(events: [Event], draining: Bool, closed: Bool)>(([], false, false))

        init(_ handler: @escaping @Sendable (Event) -> Void) {
            self.handler = handler
        }

        /// Queues `event`; true when the caller must then call ``drain()``.
        func post(_ event: Event) -> Bool {
            state.withLock { state in
                guard !state.closed else { return false }
                state.events.append(event)
                if state.draining { return false }
                state.draining = true
                return true
            }
        }

        /// Delivers the queued events, and those posted meanwhile, until none is left.
        func drain() {
            while true {
                let next: Event? = state.withLock { state in
                    guard !state.closed, !state.events.isEmpty else {
                        state.draining = false
                        return nil
                    }
                    return state.events.removeFirst()
                }
                guard let next else { return }
                handler(next)
            }
        }

        /// Drops the queued events and stops delivery.
        func close() {
            state.withLock { state in
                state.closed = true
                state.events = []
            }
        }
    }
}
