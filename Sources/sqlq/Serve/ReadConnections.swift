#if HTTP
    import SQLite
    import Locking

    #if canImport(Glibc)
        import Glibc
    #endif

    /// The read-only connections that requests other than live streams read through, so that
    /// requests run side by side: each read takes whichever connection is free, and waits for
    /// one when all are busy. Each connection has its own time limit (``QueryTimeLimit``), so a
    /// slow request holds one connection, not the server.
    final class ReadConnections: Sendable {
        private struct State {
            var free: [DatabaseQueue]
            var waiting: [CheckedContinuation<DatabaseQueue, Never>] = []
        }

        /// How many connections there are.
        let count: Int
        private let state: Lock<State>

        /// As many connections as cores, at least 2 and at most 8: a read is mostly CPU work, and
        /// a second connection on one core still lets a short request pass a long one.
        static var defaultCount: Int { min(8, max(2, sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }

        init(_ connections: [DatabaseQueue]) {
            precondition(!connections.isEmpty, "a request needs a connection to read through")
            count = connections.count
            state = Lock(State(free: connections))
        }

        /// How many connections a request is reading through now.
        var inUse: Int { count - state.withLock { $0.free.count } }

        /// Runs `body` on a free connection, in a read transaction.
        func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
            let connection = await checkOut()
            defer { checkIn(connection) }
            return try await connection.read(body)
        }

        private func checkOut() async -> DatabaseQueue {
            await withCheckedContinuation { continuation in
                let connection = state.withLock { state -> DatabaseQueue? in
                    if let connection = state.free.popLast() { return connection }
                    state.waiting.append(continuation)
                    return nil
                }
                if let connection { continuation.resume(returning: connection) }
            }
        }

        private func checkIn(_ connection: DatabaseQueue) {
            let waiter = state.withLock { state -> CheckedContinuation<DatabaseQueue, Never>? in
                if !state.waiting.isEmpty { return state.waiting.removeFirst() }
                state.free.append(connection)
                return nil
            }
            // The connection goes straight to the longest waiting request, which owns it now.
            waiter?.resume(returning: connection)
        }
    }
#endif
