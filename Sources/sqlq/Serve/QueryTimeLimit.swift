#if HTTP
    import CSQLite
    import SQLite

    /// The time one request's statements may run: SQLite's progress handler interrupts them
    /// once the deadline has passed, or once the request's client has gone
    /// (``ClientDeparture/current``), and the request fails rather than holding the connection,
    /// which every request shares.
    enum QueryTimeLimit {
        /// How many virtual-machine steps run between two checks of the clock: about a tenth of
        /// a millisecond of work.
        private static let stepsPerCheck: Int32 = 1_000

        /// What the progress handler checks: the deadline, and the client.
        private final class Check {
            let deadline: ContinuousClock.Instant
            let departure: ClientDeparture?

            init(deadline: ContinuousClock.Instant, departure: ClientDeparture?) {
                self.deadline = deadline
                self.departure = departure
            }

            var shouldStop: Bool { ContinuousClock.now > deadline || departure?.hasLeft == true }
        }

        /// Runs `body` with its statements interrupted after `limit`, and with no value longer than an
        /// answer may be (``ByteBudget/serve``).
        static func run<T>(_ db: Database, limit: Duration, _ body: () throws -> T) throws -> T {
            let handle = try connectionHandle(db)
            let check = Check(deadline: .now + limit, departure: ClientDeparture.current)
            // Kept alive by the `defer` below for as long as the handler is installed.
            let context = Unmanaged.passUnretained(check).toOpaque()
            sqlite3_progress_handler(
                handle, stepsPerCheck,
                { context in
                    guard let context else { return 0 }
                    return Unmanaged<Check>.fromOpaque(context).takeUnretainedValue().shouldStop ? 1 : 0
                }, context)
            // One value may not outgrow an answer: SQLite refuses to make or read a longer one
            // (SQLITE_TOOBIG), so that `zeroblob(2000000000)` fails before it takes the memory.
            let lengthLimit = sqlite3_limit(handle, SQLITE_LIMIT_LENGTH, Int32(ByteBudget.serve.limit))
            defer {
                sqlite3_progress_handler(handle, 0, nil, nil)
                sqlite3_limit(handle, SQLITE_LIMIT_LENGTH, lengthLimit)
                withExtendedLifetime(check) {}
            }
            do {
                return try body()
            } catch let error as SQLiteError where error.code == SQLITE_INTERRUPT {
                if check.departure?.hasLeft == true { throw CancellationError() }
                throw ServeError(
                    .badRequest,
                    "the query took longer than the time limit (\(limit.formatted)) and was stopped; "
                        + "narrow the filter, choose fewer facets, or start sqlq serve with a longer --time-limit")
            }
        }
    }

    /// The connection's sqlite3 pointer, read from one of its statements while the statement
    /// lives: the connection outlives it.
    func connectionHandle(_ db: Database) throws -> OpaquePointer? {
        let statement = try db.makeStatement("SELECT 1")
        return withExtendedLifetime(statement) { sqlite3_db_handle(statement.sqliteHandle) }
    }

    extension Duration {
        /// Seconds as written: 5 s, 0.25 s.
        var formatted: String {
            let (seconds, attoseconds) = components
            if attoseconds == 0 { return "\(seconds) s" }
            return "\(Double(seconds) + Double(attoseconds) / 1e18) s"
        }
    }
#endif
