import Locking
import PostgresNIO

/// The connections of one ``PostgreSQLDatabase``: at most `maximumConnections` open at once,
/// each lent to one statement or one transaction at a time, and opened only when a borrower
/// finds none free.
///
/// Written over `PostgresConnection` rather than PostgresNIO's `PostgresClient`, whose requests
/// wait without limit while it retries a server that does not answer: here a borrower that
/// must connect does so itself, within the configuration's `connectTimeout`, and fails with the
/// reason; one that must wait for a free connection waits at most `connectionWaitTimeout`.
/// A connection the server closed (a restart, `pg_terminate_backend`) is dropped when it comes
/// back or is next borrowed, so the next borrower opens a fresh one.
final class ConnectionPool: Sendable {
    /// What a waiting borrower receives: a free connection, or leave to open one.
    private enum Grant: Sendable {
        case connection(PostgresConnection)
        case open
    }

    private struct Waiter: Sendable {
        let id: Int
        let continuation: CheckedContinuation<Grant, any Error>
        /// Fails the waiter at the wait limit; cancelled when it is served first.
        var timeout: Task<Void, Never>?
    }

    private struct State: Sendable {
        /// Free connections, the most recently used last.
        var idle: [PostgresConnection] = []
        /// Every open connection, free or lent, for `close()`.
        var open: [ObjectIdentifier: PostgresConnection] = [:]
        /// Connections being opened, which count towards the maximum.
        var opening = 0
        /// Borrowers waiting for a connection, first come first served.
        var waiters: [Waiter] = []
        var nextWaiter = 0
        var closed = false
    }

    let configuration: PostgreSQLDatabase.Configuration
    private let state = Lock(State())

    /// Opens the first connection, so that a wrong address or login fails here.
    init(configuration: PostgreSQLDatabase.Configuration) async throws {
        self.configuration = configuration
        let first = try await Self.connect(configuration)
        state.withLock { state in
            state.open[ObjectIdentifier(first)] = first
            state.idle.append(first)
        }
    }

    /// Runs `body` with a connection of its own, returned to the pool afterwards. `sql`, the
    /// statement about to run, goes into the errors of borrowing.
    func withConnection<T: Sendable>(
        sql: String?, _ body: (PostgresConnection) async throws -> T
    ) async throws -> T {
        let connection = try await acquire(sql: sql)
        do {
            let result = try await body(connection)
            release(connection)
            return result
        } catch {
            release(connection)
            throw error
        }
    }

    /// Closes every connection, free or lent (their statements fail), and waits until they are
    /// closed. Waiting and later borrowers throw ``PostgreSQLError/Kind/connectionClosed``.
    func close() async {
        let (connections, waiters) = shutDown()
        for waiter in waiters { waiter.continuation.resume(throwing: closedError(sql: nil)) }
        await withTaskGroup(of: Void.self) { group in
            for connection in connections { group.addTask { try? await connection.close() } }
        }
    }

    /// ``close()`` without waiting, for a database released without closing it.
    func closeInBackground() {
        let (connections, waiters) = shutDown()
        for waiter in waiters { waiter.continuation.resume(throwing: closedError(sql: nil)) }
        for connection in connections {
            // The connection must outlive its closing: PostgresNIO checks that it was closed.
            connection.close().whenComplete { _ in withExtendedLifetime(connection) {} }
        }
    }

    private func shutDown() -> (connections: [PostgresConnection], waiters: [Waiter]) {
        state.withLock { state in
            state.closed = true
            state.idle = []
            defer { state.waiters = [] }
            for waiter in state.waiters { waiter.timeout?.cancel() }
            return (Array(state.open.values), state.waiters)
        }
    }

    /// How many borrowers wait for a connection; for tests.
    var waiterCount: Int {
        state.withLock { $0.waiters.count }
    }

    // MARK: Borrowing

    private func acquire(sql: String?) async throws -> PostgresConnection {
        // Most borrowers find a free connection, or room for one, without waiting.
        let ready = state.withLock { state in state.closed ? nil : take(&state) }
        let grant = if let ready { ready } else { try await wait(sql: sql) }
        switch grant {
        case .connection(let connection):
            if !connection.isClosed { return connection }
            // Closed by the server while it was handed over: open another in its place.
            state.withLock { state in
                state.open[ObjectIdentifier(connection)] = nil
                state.opening += 1
            }
            return try await open()
        case .open:
            return try await open()
        }
    }

    /// A free connection still open, or room to open one, or nil when all are in use.
    private func take(_ state: inout State) -> Grant? {
        while let connection = state.idle.popLast() {
            if !connection.isClosed { return .connection(connection) }
            state.open[ObjectIdentifier(connection)] = nil
        }
        guard state.open.count + state.opening < configuration.maximumConnections else { return nil }
        state.opening += 1
        return .open
    }

    /// Waits for a connection, or room for one, at most `connectionWaitTimeout`.
    private func wait(sql: String?) async throws -> Grant {
        let id = state.withLock { state in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Grant, any Error>) in
                let now: Result<Grant, any Error>? = state.withLock { state in
                    if state.closed { return .failure(closedError(sql: sql)) }
                    // Cancelled before it could wait: the cancellation handler found no waiter.
                    if Task.isCancelled { return .failure(CancellationError()) }
                    // A connection may have come back since the first look.
                    if let grant = take(&state) { return .success(grant) }
                    state.waiters.append(Waiter(id: id, continuation: continuation))
                    return nil
                }
                if let now {
                    continuation.resume(with: now)
                    return
                }
                let limit = configuration.connectionWaitTimeout.boundedForTimers
                let timeout = Task { [weak self] in
                    guard (try? await Task.sleep(for: limit)) != nil, let self else { return }
                    self.stopWaiting(id, with: self.exhaustedError(sql: sql))
                }
                let waiting = state.withLock { state in
                    guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return false }
                    state.waiters[index].timeout = timeout
                    return true
                }
                if !waiting { timeout.cancel() }
            }
        } onCancel: {
            stopWaiting(id, with: CancellationError())
        }
    }

    /// Opens a connection in a place already counted in `opening`.
    private func open() async throws -> PostgresConnection {
        let connection: PostgresConnection
        do {
            connection = try await Self.connect(configuration)
        } catch {
            // The place goes to the next waiter, which tries for itself rather than wait on.
            let next: Waiter? = state.withLock { state in
                state.opening -= 1
                guard !state.closed, !state.waiters.isEmpty else { return nil }
                state.opening += 1
                return state.waiters.removeFirst()
            }
            next?.timeout?.cancel()
            next?.continuation.resume(returning: .open)
            throw error
        }
        let kept = state.withLock { state in
            state.opening -= 1
            if state.closed { return false }
            state.open[ObjectIdentifier(connection)] = connection
            return true
        }
        guard kept else {
            try? await connection.close()
            throw closedError(sql: nil)
        }
        return connection
    }

    /// Takes `connection` back: to the first waiter, else among the free ones; one the server
    /// closed is dropped, and its place goes to the first waiter.
    private func release(_ connection: PostgresConnection) {
        let (next, grant): (Waiter?, Grant) = state.withLock { state in
            if state.closed { return (nil, .open) }
            if connection.isClosed {
                state.open[ObjectIdentifier(connection)] = nil
                guard !state.waiters.isEmpty else { return (nil, .open) }
                state.opening += 1
                return (state.waiters.removeFirst(), .open)
            }
            guard !state.waiters.isEmpty else {
                state.idle.append(connection)
                return (nil, .open)
            }
            return (state.waiters.removeFirst(), .connection(connection))
        }
        guard let next else { return }
        next.timeout?.cancel()
        next.continuation.resume(returning: grant)
    }

    /// Fails waiter `id` with `error`, unless it was served already.
    private func stopWaiting(_ id: Int, with error: any Error) {
        let waiter: Waiter? = state.withLock { state in
            guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
            return state.waiters.remove(at: index)
        }
        waiter?.timeout?.cancel()
        waiter?.continuation.resume(throwing: error)
    }

    // MARK: Connecting and errors

    /// One connection, or a ``PostgreSQLError`` that says why not, within `connectTimeout`
    /// (PostgresNIO's deadline covers the TCP connection, TLS and the login).
    static func connect(_ configuration: PostgreSQLDatabase.Configuration) async throws -> PostgresConnection {
        do {
            return try await PostgresConnection.connect(
                configuration: configuration.connectionConfiguration(), id: 0, logger: Session.logger)
        } catch {
            throw PostgreSQLError.connecting(error, configuration)
        }
    }

    private func closedError(sql: String?) -> PostgreSQLError {
        PostgreSQLError(
            kind: .connectionClosed,
            message: "the database at \(configuration.serverDescription) was closed with close(); open it again",
            sql: sql)
    }

    private func exhaustedError(sql: String?) -> PostgreSQLError {
        PostgreSQLError(
            kind: .poolExhausted,
            message:
                "no connection to \(configuration.serverDescription) became free within \(configuration.connectionWaitTimeout) "
                + "(maximumConnections is \(configuration.maximumConnections)); raise maximumConnections or "
                + "connectionWaitTimeout, or hold connections for shorter (a long transaction keeps one)",
            sql: sql)
    }
}
