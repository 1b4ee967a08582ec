#if HTTP
    import Locking
    import SQLite

    #if canImport(Glibc)
        import Glibc
    #endif

    /// The database file `serve` reads, followed by its path: a file moved over it (`mv new.db
    /// app.db`) is opened in its place, so that every request after reads the new file, and while
    /// no file has the path, requests get 503 naming it, until one is put back.
    actor ServedFile {
        /// The connections of one opened file.
        struct Connections: Sendable {
            /// The connection of the live streams.
            var streams: DatabaseQueue
            /// The connections every other request reads through.
            var reads: ReadConnections
            /// The table views made so far of this file, for requests that ask for one again.
            var views = TableViewCache()
        }

        /// The file's path; nil for the demo database in memory, which nothing can replace.
        let path: String?
        private let open: @Sendable () async throws -> Connections
        private var connections: Connections
        /// The device and inode of the file `connections` read.
        private var identity: (device: UInt64, inode: UInt64)?

        /// The connections of the file last opened, for the stats.
        nonisolated let latest: Latest

        init(path: String?, open: @escaping @Sendable () async throws -> Connections) async throws {
            self.path = path
            self.open = open
            connections = try await open()
            identity = path.flatMap(Self.identity(of:))
            latest = Latest(connections)
        }

        /// The connections of the file that has the path now, opened if it is not the one read
        /// so far; a 503 ``ServeError`` if no file has it.
        func current() async throws -> Connections {
            guard let path else { return connections }
            guard let now = Self.identity(of: path) else {
                throw ServeError(
                    .serviceUnavailable,
                    "the database file \"\(path)\" was deleted; sqlq serve answers again once a database is put at that path",
                    headers: [.retryAfter: "5"])
            }
            if let identity, identity == now { return connections }
            do {
                connections = try await open()
            } catch {
                throw ServeError(
                    .serviceUnavailable,
                    "the database file \"\(path)\" was replaced by one that cannot be opened: "
                        + ExitStatus.message(for: error),
                    headers: [.retryAfter: "5"])
            }
            identity = now
            latest.set(connections)
            return connections
        }

        /// The connections last opened, readable without waiting for the actor.
        final class Latest: Sendable {
            private let connections: Lock<Connections>
            init(_ connections: Connections) { self.connections = Lock(connections) }
            var value: Connections { connections.withLock { $0 } }
            func set(_ value: Connections) { connections.withLock { $0 = value } }
        }

        private static func identity(of path: String) -> (device: UInt64, inode: UInt64)? {
            var status = stat()
            guard stat(path, &status) == 0 else { return nil }
            return (UInt64(status.st_dev), UInt64(status.st_ino))
        }
    }
#endif
