#if HTTP
    import SQLite
    import Locking

    #if canImport(Glibc)
        import Glibc
    #endif

    /// The read-only connections that requests other than live streams read through, so that
    /// requests run side by side: each read takes whichever connection is free, and waits for
    /// one when all are busy, at most ``waitLimit``. Each connection has its own time limit
    /// (``QueryTimeLimit``), so a slow request holds one connection, not the server; and a read
    /// whose task is cancelled, or whose client has gone (``ClientDeparture``), stops waiting, and
    /// its statements stop.
    final class ReadConnections: Sendable {
        private struct Waiter {
            var id: Int
            var continuation: CheckedContinuation<DatabaseQueue?, Never>
        }

        private struct State {
            var free: [DatabaseQueue]
            var waiting: [Waiter] = []
            var nextID = 0
        }

        /// How many connections there are.
        let count: Int
        /// The longest a read waits for a free connection before the server answers it is busy.
        let waitLimit: Duration
        private let state: Lock<State>

        /// As many connections as cores, at least 2 and at most 8: a read is mostly CPU work, and
        /// a second connection on one core still lets a short request pass a long one.
        static var defaultCount: Int { min(8, max(2, sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }

        init(_ connections: [DatabaseQueue], waitLimit: Duration = .seconds(2)) {
            precondition(!connections.isEmpty, "a request needs a connection to read through")
            count = connections.count
            self.waitLimit = waitLimit
            state = Lock(State(free: connections))
        }

        /// How many connections a request is reading through now.
        var inUse: Int { count - state.withLock { $0.free.count } }

        /// How many reads are waiting for a connection now.
        var waiting: Int { state.withLock { $0.waiting.count } }

        /// Runs `body` on a free connection, in a read transaction. Throws a 503 ``ServeError``
        /// when no connection came free within ``waitLimit``, and `CancellationError` when the
        /// task was cancelled or the client of its request has gone.
        func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
            let departure = ClientDeparture.current
            guard let connection = await checkOut(departure) else {
                try Task.checkCancellation()
                if departure?.hasLeft == true { throw CancellationError() }
                throw ServeError(
                    .serviceUnavailable,
                    "the server is busy: all \(count) database connections were taken for \(waitLimit.formatted) "
                        + "by other requests; try again shortly",
                    headers: [.retryAfter: "1"])
            }
            defer { checkIn(connection) }
            // The connection's thread reads the departure, for the time limit's checks.
            return try await connection.read { db in try ClientDeparture.$current.withValue(departure) { try body(db) }
            }
        }

        /// A free connection, or nil once `waitLimit` passed, the task was cancelled or the
        /// client left.
        private func checkOut(_ departure: ClientDeparture?) async -> DatabaseQueue? {
            let id = state.withLock { state in
                defer { state.nextID += 1 }
                return state.nextID
            }
            let timer = Lock<Task<Void, Never>?>(nil)
            defer { timer.withLock { $0 }?.cancel() }
            let observer = departure?.observe { [weak self] in self?.giveUp(id) }
            defer { departure?.stopObserving(observer) }
            return await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    let connection = state.withLock { state -> DatabaseQueue?? in
                        // Checked under the lock that giveUp takes, so a departure is never missed.
                        if Task.isCancelled || departure?.hasLeft == true { return .some(nil) }
                        if let connection = state.free.popLast() { return connection }
                        state.waiting.append(Waiter(id: id, continuation: continuation))
                        return nil
                    }
                    if let connection {
                        continuation.resume(returning: connection)
                        return
                    }
                    let waitLimit = self.waitLimit
                    timer.withLock {
                        $0 = Task { [weak self] in
                            guard (try? await Task.sleep(for: waitLimit)) != nil else { return }
                            self?.giveUp(id)
                        }
                    }
                }
            } onCancel: {
                giveUp(id)
            }
        }

        /// Ends the wait of `id`, if it still waits, with no connection.
        private func giveUp(_ id: Int) {
            let waiter = state.withLock { state -> Waiter? in
                guard let index = state.waiting.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiting.remove(at: index)
            }
            waiter?.continuation.resume(returning: nil)
        }

        private func checkIn(_ connection: DatabaseQueue) {
            let waiter = state.withLock { state -> Waiter? in
                if !state.waiting.isEmpty { return state.waiting.removeFirst() }
                state.free.append(connection)
                return nil
            }
            // The connection goes straight to the longest waiting request, which owns it now.
            waiter?.continuation.resume(returning: connection)
        }
    }
#endif
