import Foundation
import PostgreSQLTestServer
import Testing

@testable import PostgreSQL

/// The database's connection pool: bounded, reused by transactions, and healed after the server
/// closed its connections.
@Suite(.postgreSQLInstalled, .timeLimit(.minutes(2)))
struct PoolTests {
    @Test func sequentialTransactionsReuseConnections() async throws {
        let configuration = try await TestServer.makeConfiguration()
        let db = try await PostgreSQLDatabase(configuration)
        var pids: Set<Int> = []
        for _ in 0..<20 {
            let pid: Int = try await db.transaction { tx in
                try #require(try await tx.fetchOne("SELECT pg_backend_pid()"))[0]
            }
            pids.insert(pid)
        }
        #expect(pids.count <= 10, "20 transactions used \(pids.count) connections")
        await db.close()
    }

    @Test func theDatabaseWorksAgainAfterAServerRestart() async throws {
        try await TestCluster.with { cluster in
            let db = try await PostgreSQLDatabase(try await cluster.makeConfiguration())
            try await db.execute("CREATE TABLE notes(body TEXT)")
            try await db.execute("INSERT INTO notes VALUES ('before')")
            try await cluster.stop()
            try await cluster.startAgain()
            try await db.execute("INSERT INTO notes VALUES ('after')")
            try await db.transaction { tx in try await tx.execute("INSERT INTO notes VALUES ('in a transaction')") }
            let rows = try await db.fetchAll("SELECT body FROM notes ORDER BY body")
            #expect(try rows.map { try $0["body"] as String } == ["after", "before", "in a transaction"])
            await db.close()
        }
    }

    /// A free connection whose server side is gone before the client heard of it: the
    /// transaction that borrows it starts again on a fresh one, since its BEGIN changed nothing;
    /// a lone statement fails as closed (it may have run), and the next one works.
    @Test func aTransactionOnAConnectionTheServerClosedUnheardStartsAgain() async throws {
        let configuration = try await TestServer.makeConfiguration()
        let proxy = try SeveringProxy(to: configuration)
        var relayed = PostgreSQLDatabase.Configuration(
            address: .host("127.0.0.1", port: proxy.port), user: configuration.user, database: configuration.database,
            tls: .disable)
        relayed.maximumConnections = 1
        let db = try await PostgreSQLDatabase(relayed)
        try await db.execute("CREATE TABLE notes(body TEXT)")

        proxy.sever()
        try await db.transaction { tx in try await tx.execute("INSERT INTO notes VALUES ('once')") }
        #expect(proxy.severedConnectionsUsed == 1, "the transaction did not meet the severed connection")
        #expect(try await db.fetchAll("SELECT body FROM notes").map { try $0["body"] as String } == ["once"])

        proxy.sever()
        let error = await #expect(throws: PostgreSQLError.self) {
            try await db.execute("INSERT INTO notes VALUES ('x')")
        }
        #expect(error?.kind == .connectionClosed)
        try await db.execute("INSERT INTO notes VALUES ('twice')")
        #expect(proxy.severedConnectionsUsed == 2)
        await db.close()
    }

    @Test func theDatabaseWorksAgainAfterItsBackendWasTerminated() async throws {
        let configuration = try await TestServer.makeConfiguration()
        let db = try await PostgreSQLDatabase(configuration)
        let pid: Int = try #require(try await db.fetchOne("SELECT pg_backend_pid()"))[0]
        let admin = try await PostgreSQLDatabase(configuration)
        try await admin.execute("SELECT pg_terminate_backend($1)", [.integer(Int64(pid))])
        try await TestServer.until("the backend has exited") {
            try await admin.fetchAll("SELECT 1 FROM pg_stat_activity WHERE pid = $1", [.integer(Int64(pid))]).isEmpty
        }
        await admin.close()
        let next: Int = try #require(try await db.fetchOne("SELECT pg_backend_pid()"))[0]
        #expect(next != pid)
        await db.close()
    }

    @Test func concurrentTransactionsBeyondThePoolSizeAllComplete() async throws {
        var configuration = try await TestServer.makeConfiguration()
        configuration.maximumConnections = 3
        // What this test checks is that every transaction completes on at most 3 connections,
        // not how long one waits for a connection: on a loaded machine, 12 transactions that
        // take turns at one row's lock can wait past the default 10 s.
        configuration.connectionWaitTimeout = .seconds(120)
        let db = try await PostgreSQLDatabase(configuration)
        try await db.execute("CREATE TABLE counter(n INTEGER NOT NULL)")
        try await db.execute("INSERT INTO counter VALUES (0)")
        let pids = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<12 {
                group.addTask {
                    try await db.transaction { tx in
                        try await tx.execute("UPDATE counter SET n = n + 1")
                        // Holds the connection a while, so that the transactions overlap.
                        try await tx.execute("SELECT pg_sleep(0.05)::text")
                        return try #require(try await tx.fetchOne("SELECT pg_backend_pid()"))[0] as Int
                    }
                }
            }
            return try await group.reduce(into: Set<Int>()) { $0.insert($1) }
        }
        #expect(pids.count <= 3, "12 transactions used \(pids.count) connections")
        #expect(try #require(try await db.fetchOne("SELECT n FROM counter"))[0] as Int == 12)
        await db.close()
    }

    /// A transaction begun by a statement of its own would stay open on a pooled connection
    /// that later statements may or may not borrow: refused, and the connection left outside
    /// any transaction.
    @Test(arguments: ["BEGIN", "start transaction isolation level serializable", "/* first */ BEGIN"])
    func aTransactionBegunOutsideTransactionIsRefused(statement: String) async throws {
        var configuration = try await TestServer.makeConfiguration()
        configuration.maximumConnections = 1
        let db = try await PostgreSQLDatabase(configuration)
        let other = try await PostgreSQLDatabase(configuration)
        try await db.execute("CREATE TABLE items(id INTEGER)")
        let error = await #expect(throws: PostgreSQLError.self) { try await db.execute(statement) }
        #expect(error?.message.contains("transaction(_:)") == true, "\(String(describing: error))")
        #expect(error?.sql == statement)
        // The one connection is outside any transaction: its insert is committed at once.
        try await db.execute("INSERT INTO items VALUES (1)")
        #expect(try await other.fetchAll("SELECT id FROM items").count == 1)
        await other.close()
        await db.close()
    }

    @Test func aStatementWaitsAtMostTheWaitLimitForAFreeConnection() async throws {
        var configuration = try await TestServer.makeConfiguration()
        configuration.maximumConnections = 1
        configuration.connectionWaitTimeout = .milliseconds(300)
        let db = try await PostgreSQLDatabase(configuration)
        let (inside, insideContinuation) = AsyncStream.makeStream(of: Void.self)
        let (release, releaseContinuation) = AsyncStream.makeStream(of: Void.self)
        let holder = Task {
            try await db.transaction { tx in
                try await tx.execute("SELECT 1")
                insideContinuation.yield()
                for await _ in release { break }
            }
        }
        for await _ in inside { break }
        let started = ContinuousClock.now
        let error = await #expect(throws: PostgreSQLError.self) { try await db.execute("SELECT 2") }
        #expect(error?.kind == .poolExhausted)
        #expect(error?.message.contains("maximumConnections") == true, "\(String(describing: error))")
        #expect(error?.sql == "SELECT 2")
        #expect(ContinuousClock.now - started < .seconds(60))
        releaseContinuation.yield()
        try await holder.value
        // Free again: the next statement gets the connection.
        #expect(try await db.fetchOne("SELECT 3") != nil)
        await db.close()
    }

    /// With a minute's wait, and with the longest a `Duration` holds, which no timer can count
    /// in nanoseconds: it waits 68 years instead, never trapping.
    @Test(arguments: [Duration.seconds(60), .seconds(Int64.max)])
    func aWaitingStatementStopsWaitingWhenItsTaskIsCancelled(waitTimeout: Duration) async throws {
        var configuration = try await TestServer.makeConfiguration()
        configuration.maximumConnections = 1
        configuration.connectionWaitTimeout = waitTimeout
        configuration.connectTimeout = waitTimeout
        let db = try await PostgreSQLDatabase(configuration)
        let (inside, insideContinuation) = AsyncStream.makeStream(of: Void.self)
        let (release, releaseContinuation) = AsyncStream.makeStream(of: Void.self)
        let holder = Task {
            try await db.transaction { _ in
                insideContinuation.yield()
                for await _ in release { break }
            }
        }
        for await _ in inside { break }
        let waiting = Task { try await db.execute("SELECT 1") }
        try await TestServer.until("the statement waits") { db.pool.waiterCount == 1 }
        let started = ContinuousClock.now
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
        #expect(ContinuousClock.now - started < .seconds(60))
        releaseContinuation.yield()
        try await holder.value
        #expect(try await db.fetchOne("SELECT 2") != nil)
        await db.close()
    }

    @Test func closeClosesEveryConnectionAndLaterStatementsThrow() async throws {
        var configuration = try await TestServer.makeConfiguration()
        configuration.maximumConnections = 4
        let db = try await PostgreSQLDatabase(configuration)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<4 { group.addTask { try await db.execute("SELECT pg_sleep(0.05)::text") } }
            try await group.waitForAll()
        }
        let admin = try await PostgreSQLDatabase(configuration)
        let count =
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
        #expect(try #require(try await admin.fetchOne(count))[0] as Int > 1)
        await db.close()
        try await TestServer.until("the server saw every connection close") {
            try #require(try await admin.fetchOne(count))[0] as Int == 0
        }
        await admin.close()
        let error = await #expect(throws: PostgreSQLError.self) { try await db.execute("SELECT 1") }
        #expect(error?.kind == .connectionClosed)
        #expect(error?.message.contains("close()") == true, "\(String(describing: error))")
    }

    @Test func whileTheServerIsDownStatementsFailFastThenWorkAgain() async throws {
        try await TestCluster.with { cluster in
            var configuration = try await cluster.makeConfiguration()
            configuration.connectTimeout = .seconds(3)
            let db = try await PostgreSQLDatabase(configuration)
            try await cluster.stop()
            let started = ContinuousClock.now
            let error = await #expect(throws: PostgreSQLError.self) { try await db.execute("SELECT 1") }
            // A pooled connection whose end the client has not seen yet fails as closed; a new one
            // as failed. Either fails fast, well within the bound, which is loose for loaded machines.
            #expect(
                error.map { [.connectionFailed, .connectionClosed].contains($0.kind) } == true,
                "\(String(describing: error))")
            #expect(ContinuousClock.now - started < .seconds(60))
            try await cluster.startAgain()
            #expect(try await db.fetchOne("SELECT 1") != nil)
            await db.close()
        }
    }

    @Test func aPortWithNothingListeningFailsWithinTheConnectTimeout() async throws {
        let port = try TCPPort.free()
        let configuration = PostgreSQLDatabase.Configuration(
            address: .host("127.0.0.1", port: port), user: "postgres", database: "postgres",
            connectTimeout: .seconds(2))
        let started = ContinuousClock.now
        let error = await #expect(throws: PostgreSQLError.self) { _ = try await PostgreSQLDatabase(configuration) }
        #expect(error?.kind == .connectionFailed, "\(String(describing: error))")
        #expect(error?.message.contains("127.0.0.1:\(port)") == true)
        // Bounded well above the timeout: on a loaded machine its timer fires late (16 s on two
        // cores, with the other suites starting), and a hang would not end at all.
        #expect(ContinuousClock.now - started < .seconds(60))
    }

    @Test func aServerThatNeverAnswersFailsWithinTheConnectTimeout() async throws {
        let listener = try TCPListener()
        defer { listener.close() }
        let configuration = PostgreSQLDatabase.Configuration(
            address: .host("127.0.0.1", port: listener.port), user: "postgres", database: "postgres",
            connectTimeout: .seconds(2), tls: .disable)
        let started = ContinuousClock.now
        let error = await #expect(throws: PostgreSQLError.self) { _ = try await PostgreSQLDatabase(configuration) }
        #expect(error?.kind == .connectionFailed, "\(String(describing: error))")
        let elapsed = ContinuousClock.now - started
        #expect(elapsed >= .seconds(2) && elapsed < .seconds(60), "\(elapsed)")
    }
}

/// TLS on TCP connections, against a server of its own with a throwaway certificate authority.
@Suite(.postgreSQLInstalled, .timeLimit(.minutes(2)))
struct TLSTests {
    /// Whether the connection of `db` is encrypted, as the server sees it.
    static func encrypted(_ db: PostgreSQLDatabase) async throws -> Bool {
        try #require(try await db.fetchOne("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()"))[0]
    }

    @Test func everyModeAgainstAServerWithTLS() async throws {
        try await TestCluster.with(tcp: true, ssl: true) { cluster in
            let name = try await cluster.makeConfiguration().database

            let required = try await PostgreSQLDatabase(cluster.tcpConfiguration(database: name, tls: .require))
            #expect(try await Self.encrypted(required))
            await required.close()

            // Encrypted, though the system's authorities do not know the server's certificate.
            let preferred = try await PostgreSQLDatabase(cluster.tcpConfiguration(database: name, tls: .prefer))
            #expect(try await Self.encrypted(preferred))
            await preferred.close()

            let disabled = try await PostgreSQLDatabase(cluster.tcpConfiguration(database: name, tls: .disable))
            #expect(try await !Self.encrypted(disabled))
            await disabled.close()

            let verified = try await PostgreSQLDatabase(
                cluster.tcpConfiguration(database: name, host: "localhost", tls: .verifyFull(caFile: cluster.caFile)))
            #expect(try await Self.encrypted(verified))
            await verified.close()

            // The system's authorities do not know the throwaway one.
            let unknown = await #expect(throws: PostgreSQLError.self) {
                _ = try await PostgreSQLDatabase(
                    cluster.tcpConfiguration(database: name, host: "localhost", tls: .verifyFull()))
            }
            #expect(unknown?.kind == .connectionFailed)
            #expect(unknown?.message.contains("certificate") == true, "\(String(describing: unknown))")

            // The certificate names "localhost", not 127.0.0.1.
            let wrongHost = await #expect(throws: PostgreSQLError.self) {
                _ = try await PostgreSQLDatabase(
                    cluster.tcpConfiguration(database: name, tls: .verifyFull(caFile: cluster.caFile)))
            }
            #expect(wrongHost?.kind == .connectionFailed)
            #expect(wrongHost?.message.contains("does not name that host") == true, "\(String(describing: wrongHost))")

            let missingFile = await #expect(throws: PostgreSQLError.self) {
                _ = try await PostgreSQLDatabase(
                    cluster.tcpConfiguration(
                        database: name, host: "localhost", tls: .verifyFull(caFile: cluster.directory + "/none.pem")))
            }
            #expect(missingFile?.kind == .connectionFailed)
            #expect(missingFile?.message.contains("none.pem") == true, "\(String(describing: missingFile))")
        }
    }

    @Test func requireAgainstAServerWithoutTLSFails() async throws {
        try await TestCluster.with(tcp: true) { cluster in
            let name = try await cluster.makeConfiguration().database
            let error = await #expect(throws: PostgreSQLError.self) {
                _ = try await PostgreSQLDatabase(cluster.tcpConfiguration(database: name, tls: .require))
            }
            #expect(error?.kind == .connectionFailed)
            #expect(error?.message.contains("offers no TLS") == true, "\(String(describing: error))")
            let preferred = try await PostgreSQLDatabase(cluster.tcpConfiguration(database: name, tls: .prefer))
            #expect(try await !Self.encrypted(preferred))
            await preferred.close()
        }
    }
}
