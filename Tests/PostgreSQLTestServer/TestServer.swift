import ChildProcesses
import Foundation
import Locking
import PostgreSQL

/// A throwaway PostgreSQL server for the tests: one per test process, started on first use in a
/// temporary folder, listening only on a unix socket in that folder, stopped and deleted when
/// the process exits. Each test opens a database of its own, so tests run in parallel. A test
/// that stops or restarts its server starts a ``TestCluster`` of its own instead.
public enum TestServer {
    /// The folder holding `initdb` and `pg_ctl`, newest version first, or nil when PostgreSQL's
    /// server binaries are not installed.
    public static let binaries: String? = {
        let root = "/usr/lib/postgresql"
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        return versions.sorted { (Int($0) ?? 0) > (Int($1) ?? 0) }.map { "\(root)/\($0)/bin" }.first {
            FileManager.default.isExecutableFile(atPath: "\($0)/initdb")
                && FileManager.default.isExecutableFile(atPath: "\($0)/pg_ctl")
        }
    }()

    /// The running shared server, or why it did not start.
    private static let server: Result<TestCluster, any Error> = Result {
        let cluster = try TestCluster()
        try cluster.startNow()
        return cluster
    }

    /// A new, empty database on the server, for one test.
    public static func makeDatabase() async throws -> PostgreSQLDatabase {
        try await PostgreSQLDatabase(makeConfiguration())
    }

    /// The configuration of a new, empty database on the server, for one test.
    /// `options` follow `CREATE DATABASE name`, such as a locale.
    public static func makeConfiguration(options: String = "") async throws -> PostgreSQLDatabase.Configuration {
        try await server.get().makeConfiguration(options: options)
    }

    /// Runs `body` with a new database, closed afterwards; `options` follow `CREATE DATABASE name`.
    public static func withDatabase<Result>(
        options: String = "", _ body: (PostgreSQLDatabase) async throws -> Result
    ) async throws -> Result {
        let db = try await PostgreSQLDatabase(makeConfiguration(options: options))
        do {
            let result = try await body(db)
            await db.close()
            return result
        } catch {
            await db.close()
            throw error
        }
    }

    public static func configuration(database: String) throws -> PostgreSQLDatabase.Configuration {
        try server.get().configuration(database: database)
    }

    /// Runs `body` on a thread of its own and waits for it without holding a thread: a test that
    /// blocks one of the few threads of Swift's concurrency pool (two on a two-core machine) for
    /// the seconds a server takes to start or stop stalls every other test's tasks meanwhile,
    /// and the time limits those tests check.
    public static func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try body() }) }.start()
        }
    }

    /// Runs a command as the `postgres` user when this process is root (the server refuses to
    /// run as root), with a time limit; throws with its output when it fails.
    fileprivate static func run(_ arguments: [String], limit seconds: Int) throws {
        let asPostgres = getuid() == 0 && arguments[0] != "chown"
        let command = (asPostgres ? ["runuser", "-u", "postgres", "--"] : []) + arguments
        let output = NSTemporaryDirectory() + "pg-\(UUID().uuidString).log"
        defer { try? FileManager.default.removeItem(atPath: output) }
        let process = try ChildProcess(
            command[0], Array(command.dropFirst()), output: .file(output), error: .standardOutput)
        let termination = try process.wait(timeLimit: .seconds(seconds))
        guard termination == .exited(0) else {
            let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
            throw TestServerError("\(command.joined(separator: " ")) failed with \(termination): \(text)")
        }
    }
}

/// One PostgreSQL cluster in a temporary folder of its own (its data, its log and its socket),
/// listening on a unix socket, and on TCP 127.0.0.1 too when asked. ``TestServer`` runs one,
/// shared by the tests; a test that stops or restarts a server runs one of its own with
/// ``with(tcp:ssl:_:)``, which deletes it afterwards. Every cluster still running when the
/// process exits is stopped and deleted then.
public final class TestCluster: Sendable {
    public let binaries: String
    /// The folder holding the data folder, the log and the socket.
    public let directory: String
    /// The socket's name, and the TCP port on 127.0.0.1 when the cluster listens on TCP.
    public let port: Int
    /// Whether the server listens on TCP 127.0.0.1 too.
    public let tcp: Bool
    /// Whether the server offers TLS, with a certificate for "localhost" signed by a throwaway
    /// certificate authority, ``caFile``.
    public let ssl: Bool

    /// The throwaway certificate authority's certificate, PEM, when ``ssl`` is on.
    public var caFile: String { "\(directory)/ca.crt" }

    /// Creates the cluster's files (initdb, and the certificates with `ssl`); it does not run
    /// until ``start()``. With `tcp`, it listens on a free private port of 127.0.0.1 too.
    public init(tcp: Bool = false, ssl: Bool = false) throws {
        guard let binaries = TestServer.binaries else {
            throw TestServerError("PostgreSQL's server binaries were not found")
        }
        self.binaries = binaries
        self.tcp = tcp
        self.ssl = ssl
        directory = NSTemporaryDirectory() + "pg-" + UUID().uuidString.prefix(8)
        port = tcp ? try TCPPort.free() : 40_000 + Int(getpid() % 20_000)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        Self.live.withLock { $0[directory] = binaries }
        _ = Self.exitHandler
        do {
            if getuid() == 0 { try TestServer.run(["chown", "postgres", directory], limit: 10) }
            try TestServer.run(
                [
                    "\(binaries)/initdb", "-D", "\(directory)/data", "-A", "trust", "-U", "postgres", "-E", "UTF8",
                    "--locale=C",
                ],
                limit: 120)
            if ssl { try makeCertificates() }
        } catch {
            shutdown()
            throw error
        }
    }

    /// Runs `body` with a new cluster, started, then stops and deletes it, whether `body`
    /// returns or throws.
    public static func with<Result>(
        tcp: Bool = false, ssl: Bool = false, _ body: (TestCluster) async throws -> Result
    ) async throws -> Result {
        let cluster = try await TestServer.offPool { try TestCluster(tcp: tcp, ssl: ssl) }
        do {
            try await cluster.start()
            let result = try await body(cluster)
            try await TestServer.offPool { cluster.shutdown() }
            return result
        } catch {
            try await TestServer.offPool { cluster.shutdown() }
            throw error
        }
    }

    /// Starts the server and waits until it accepts connections.
    public func start() async throws {
        try await TestServer.offPool { try self.startNow() }
    }

    /// ``start()``, blocking the calling thread.
    fileprivate func startNow() throws {
        try TestServer.run(
            [
                "\(binaries)/pg_ctl", "-D", "\(directory)/data", "-l", "\(directory)/server.log",
                // Tests run in parallel, each with its databases, readers and listener.
                "-o",
                "-k \(directory) -c listen_addresses='\(tcp ? "127.0.0.1" : "")' -c max_connections=400 -p \(port)"
                    + (ssl
                        ? " -c ssl=on -c ssl_cert_file=\(directory)/server.crt -c ssl_key_file=\(directory)/server.key"
                        : ""),
                "-w", "-t", "60",
                "start",
            ],
            limit: 90)
    }

    /// Stops the server (fast shutdown: connections are closed, as on a server restart) and waits
    /// until it has stopped.
    public func stop() async throws {
        try await TestServer.offPool {
            try TestServer.run(
                ["\(self.binaries)/pg_ctl", "-D", "\(self.directory)/data", "-m", "fast", "-w", "-t", "60", "stop"],
                limit: 90)
        }
    }

    /// Starts the server again after ``stop()``.
    public func startAgain() async throws {
        try await start()
    }

    /// Stops the server if it runs, and deletes the cluster's folder.
    public func shutdown() {
        Self.remove(directory: directory, binaries: binaries)
        Self.live.withLock { $0[directory] = nil }
    }

    public func configuration(database: String) -> PostgreSQLDatabase.Configuration {
        .init(address: .unixSocket(directory: directory, port: port), user: "postgres", database: database)
    }

    /// A configuration for `database` over TCP, at `host` (127.0.0.1 or localhost).
    public func tcpConfiguration(
        database: String, host: String = "127.0.0.1", tls: PostgreSQLDatabase.Configuration.TLS
    ) -> PostgreSQLDatabase.Configuration {
        .init(address: .host(host, port: port), user: "postgres", database: database, tls: tls)
    }

    /// A throwaway certificate authority, and a server certificate signed by it that names only
    /// "localhost"; made by the `postgres` user, whose key file the server requires.
    private func makeCertificates() throws {
        let ext = "\(directory)/server.ext"
        try "subjectAltName = DNS:localhost\n".write(toFile: ext, atomically: true, encoding: .utf8)
        let key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        try TestServer.run(
            ["openssl", "req", "-x509"] + key
                + ["-keyout", "\(directory)/ca.key", "-out", caFile, "-days", "2", "-subj", "/CN=Test CA"],
            limit: 30)
        try TestServer.run(
            ["openssl", "req"] + key
                + [
                    "-keyout", "\(directory)/server.key", "-out", "\(directory)/server.csr", "-subj", "/CN=localhost",
                ],
            limit: 30)
        try TestServer.run(
            [
                "openssl", "x509", "-req", "-in", "\(directory)/server.csr", "-CA", caFile, "-CAkey",
                "\(directory)/ca.key", "-CAcreateserial", "-out", "\(directory)/server.crt", "-days", "2",
                "-extfile", ext,
            ],
            limit: 30)
    }

    /// The configuration of a new, empty database, for one test.
    public func makeConfiguration(options: String = "") async throws -> PostgreSQLDatabase.Configuration {
        let name = "test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let admin = try await PostgreSQLDatabase(configuration(database: "postgres"))
        do {
            try await admin.execute("CREATE DATABASE \(name) \(options)")
        } catch {
            await admin.close()
            throw error
        }
        await admin.close()
        return configuration(database: name)
    }

    /// The folders of the clusters not yet shut down, with their binaries, for the exit handler.
    private static let live = Lock<[String: String]>([:])

    /// Registered once, with the first cluster.
    private static let exitHandler: Void = {
        atexit {
            for (directory, binaries) in TestCluster.live.withLock({ $0 }) {
                TestCluster.remove(directory: directory, binaries: binaries)
            }
        }
    }()

    private static func remove(directory: String, binaries: String) {
        if FileManager.default.fileExists(atPath: "\(directory)/data/postmaster.pid") {
            try? TestServer.run(
                ["\(binaries)/pg_ctl", "-D", "\(directory)/data", "-m", "immediate", "-w", "-t", "20", "stop"],
                limit: 30)
        }
        try? FileManager.default.removeItem(atPath: directory)
    }
}

public struct TestServerError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// TCP ports of 127.0.0.1 for the tests.
public enum TCPPort {
    /// A port nothing listens on now: the kernel's pick for a socket bound and closed at once.
    public static func free() throws -> Int {
        let listener = try TCPListener()
        defer { listener.close() }
        return listener.port
    }
}

/// A TCP socket on 127.0.0.1 that listens and never accepts nor answers: the kernel completes
/// connections to it, which then hear nothing, like a server that hangs.
public final class TCPListener: Sendable {
    public let descriptor: Int32
    public let port: Int

    public init() throws {
        #if canImport(Glibc)
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw TestServerError("socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(descriptor, address, length) == 0 && listen(descriptor, 16) == 0
                    && getsockname(descriptor, address, &length) == 0
            }
        }
        guard bound else {
            let reason = String(cString: strerror(errno))
            Glibc.close(descriptor)
            throw TestServerError("cannot listen on 127.0.0.1: \(reason)")
        }
        self.descriptor = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    public func close() {
        Glibc.close(descriptor)
    }
}
