import Foundation
import PostgreSQL
import PostgreSQLTestServer
import SQLite
import Testing

@Suite(.postgreSQLInstalled)
struct ErrorTests {
    @Test func badSQLReportsItsSQLStateAndTheSQL() async throws {
        try await TestServer.withDatabase { db in
            let error = await #expect(throws: PostgreSQLError.self) { try await db.execute("SELEC 1") }
            #expect(error?.kind == .server)
            #expect(error?.sqlState == "42601")
            #expect(error?.sql == "SELEC 1")
            #expect(error?.description.contains("syntax error") == true)
            #expect(error?.description.contains("SQL: SELEC 1") == true)
        }
    }

    @Test func aMissingTableIs42P01() async throws {
        try await TestServer.withDatabase { db in
            let error = await #expect(throws: PostgreSQLError.self) { try await db.fetchAll("SELECT * FROM itemz") }
            #expect(error?.sqlState == "42P01")
            #expect(error?.message.contains("itemz") == true)
        }
    }

    // A missing socket fails at once, not after the connect timeout: the timeout is long, and
    // the bound half of a minute, so that a loaded machine's slowness cannot pass for waiting.
    // The second timeout is the longest a `Duration` holds, which no timer can count in
    // nanoseconds: it waits 68 years instead, never trapping.
    @Test(.timeLimit(.minutes(2)), arguments: [Duration.seconds(60), .seconds(Int64.max)])
    func aFolderWithNoServerFailsQuicklyWithATypedError(connectTimeout: Duration) async throws {
        let directory = NSTemporaryDirectory() + "no-server-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let configuration = PostgreSQLDatabase.Configuration(
            address: .unixSocket(directory: directory, port: 5432),
            user: "postgres", database: "postgres", connectTimeout: connectTimeout)
        let started = ContinuousClock.now
        let error = await #expect(throws: PostgreSQLError.self) { _ = try await PostgreSQLDatabase(configuration) }
        #expect(error?.kind == .connectionFailed)
        #expect(error?.description.contains(".s.PGSQL.5432") == true)
        #expect(
            error?.message.hasPrefix("no PostgreSQL socket at \(directory)/.s.PGSQL.5432 (no such file);") == true,
            "\(error?.message ?? "")")
        #expect(error?.message.contains("errno") == false)
        #expect(ContinuousClock.now - started < .seconds(60))
    }

    // The sentence says what was found at the address, without the connector's own words.
    @Test(.timeLimit(.minutes(1)))
    func aRefusedPortIsToldInASentence() async throws {
        let configuration = PostgreSQLDatabase.Configuration(
            address: .host("127.0.0.1", port: 1), user: "postgres", database: "postgres",
            connectTimeout: .seconds(30))
        let error = await #expect(throws: PostgreSQLError.self) { _ = try await PostgreSQLDatabase(configuration) }
        #expect(error?.kind == .connectionFailed)
        #expect(
            error?.message.hasPrefix("nothing listens at 127.0.0.1:1 (connection refused);") == true,
            "\(error?.message ?? "")")
        #expect(error?.message.contains("SingleConnectionFailure") == false)
    }

    // A listener that answers an HTTP error and closes is no PostgreSQL server: said at once,
    // not as a closed connection that the next statement would open again.
    @Test(.timeLimit(.minutes(1)))
    func aServerThatIsNotPostgreSQLIsToldAsSuch() async throws {
        let listener = try TCPListener()
        defer { listener.close() }
        let descriptor = listener.descriptor
        Thread {
            let connection = accept(descriptor, nil, nil)
            guard connection >= 0 else { return }
            // The client's startup message read first: closing with unread bytes would send a
            // reset, not the close this test is about.
            var startup = [UInt8](repeating: 0, count: 4096)
            _ = startup.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
            let answer = Array("HTTP/1.1 400 Bad Request\r\n\r\n".utf8)
            _ = answer.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            close(connection)
        }.start()
        let configuration = PostgreSQLDatabase.Configuration(
            address: .host("127.0.0.1", port: listener.port), user: "me", database: "db", tls: .disable)
        let error = await #expect(throws: PostgreSQLError.self) { _ = try await PostgreSQLDatabase(configuration) }
        #expect(error?.kind == .connectionFailed)
        #expect(
            error?.message
                == "what answers at 127.0.0.1:\(listener.port) did not answer as a PostgreSQL server (it closed the "
                + "connection before the login finished, with no PostgreSQL error); check that the host and port are "
                + "the PostgreSQL server's")
    }

    @Test(.timeLimit(.minutes(2)))
    func aMissingPasswordIsToldAsSuch() async throws {
        try await TestCluster.with(tcp: true) { cluster in
            let admin = try await PostgreSQLDatabase(cluster.configuration(database: "postgres"))
            try await admin.execute("CREATE ROLE pw LOGIN PASSWORD 'secret'")
            let file = "\(cluster.directory)/data/pg_hba.conf"
            let rules = try String(contentsOfFile: file, encoding: .utf8)
            try ("host all pw 127.0.0.1/32 scram-sha-256\n" + rules).write(
                toFile: file, atomically: false, encoding: .utf8)
            _ = try await admin.fetchAll("SELECT pg_reload_conf()")
            try await TestServer.until("the server reads the new rule") {
                try await !admin.fetchAll("SELECT 1 FROM pg_hba_file_rules WHERE 'pw' = ANY(user_name)").isEmpty
            }
            await admin.close()
            var configuration = cluster.tcpConfiguration(database: "postgres", tls: .disable)
            configuration.user = "pw"
            let error = await #expect(throws: PostgreSQLError.self) { _ = try await PostgreSQLDatabase(configuration) }
            #expect(error?.kind == .connectionFailed)
            #expect(
                error?.message
                    == "the server at 127.0.0.1:\(cluster.port) asks for a password for role \"pw\", and none was "
                    + "given: set the configuration's password")
            configuration.password = "secret"
            let db = try await PostgreSQLDatabase(configuration)
            await db.close()
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func aDatabaseReleasedWithoutClosingClosesItsConnection() async throws {
        let configuration = try await TestServer.makeConfiguration()
        let admin = try await PostgreSQLDatabase(configuration)
        func connections() async throws -> Int {
            try #require(
                try await admin.fetchOne("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"))[0]
        }
        do {
            let forgotten = try await PostgreSQLDatabase(configuration)
            try await forgotten.execute("SELECT 1")
            #expect(try await connections() == 2)
        }
        // Closing happens in the background: the server notices within the time limit.
        try await TestServer.until("the server sees the forgotten connection closed") { try await connections() <= 1 }
        await admin.close()
    }

    @Test(.timeLimit(.minutes(1)))
    func aClosedDatabaseThrowsRatherThanWaits() async throws {
        let db = try await TestServer.makeDatabase()
        await db.close()
        let error = await #expect(throws: PostgreSQLError.self) { try await db.execute("SELECT 1") }
        #expect(error?.kind == .connectionClosed)
    }

    @Test func aDuplicateKeyIsAUniqueConstraintViolation() async throws {
        try await TestServer.withDatabase { db in
            try await db.execute("CREATE TABLE items(id INTEGER PRIMARY KEY, title TEXT NOT NULL UNIQUE)")
            try await db.execute("INSERT INTO items VALUES (1, $1)", ["milk"])
            let violation = await #expect(throws: ConstraintViolation.self) {
                try await db.execute("INSERT INTO items VALUES (2, $1)", ["milk"])
            }
            #expect(violation?.kind == .unique)
            #expect(violation?.table == "items")
            #expect(violation?.columns == ["title"])
            #expect((violation?.underlying as? PostgreSQLError)?.sqlState == "23505")
            #expect(violation?.sql == "INSERT INTO items VALUES (2, $1)")
        }
    }

    @Test func nullsForeignKeysAndChecksAreViolationsToo() async throws {
        try await TestServer.withDatabase { db in
            try await db.execute("CREATE TABLE lists(id INTEGER PRIMARY KEY)")
            try await db.execute(
                """
                CREATE TABLE items(
                    id INTEGER PRIMARY KEY, list_id INTEGER REFERENCES lists(id), title TEXT NOT NULL,
                    price INTEGER CONSTRAINT positive CHECK (price > 0)
                )
                """)
            let notNull = await #expect(throws: ConstraintViolation.self) {
                try await db.execute("INSERT INTO items(id, title) VALUES (1, NULL)")
            }
            #expect(notNull?.kind == .notNull)
            #expect(notNull?.columns == ["title"])
            let foreignKey = await #expect(throws: ConstraintViolation.self) {
                try await db.execute("INSERT INTO items(id, list_id, title) VALUES (1, 9, 'milk')")
            }
            #expect(foreignKey?.kind == .foreignKey)
            let check = await #expect(throws: ConstraintViolation.self) {
                try await db.execute("INSERT INTO items(id, title, price) VALUES (1, 'milk', -1)")
            }
            #expect(check?.kind == .check)
            #expect(check?.constraint == "positive")
        }
    }
}

@Suite(.postgreSQLInstalled)
struct PrimaryKeyViolationTests {
    /// SQLite reports a duplicate primary key as `.primaryKey`; so must PostgreSQL, whose 23505
    /// says only "unique".
    @Test func aDuplicatePrimaryKeyIsAPrimaryKeyViolationAsOnSQLite() async throws {
        let sqlite = try Database()
        try sqlite.execute("CREATE TABLE items(id INTEGER PRIMARY KEY, title TEXT UNIQUE)")
        try sqlite.execute("INSERT INTO items VALUES (1, 'milk'), (2, 'bread')")
        let onSQLite = #expect(throws: ConstraintViolation.self) {
            try Table("items").filter(Column("id") == 2).updateAll(sqlite, Column("id").set(to: 1))
        }
        #expect(onSQLite?.kind == .primaryKey)
        try await TestServer.withDatabase { db in
            try await db.execute("CREATE TABLE items(id INTEGER PRIMARY KEY, title TEXT UNIQUE)")
            try await db.execute("CREATE TABLE pairs(a INTEGER, b INTEGER, CONSTRAINT pairs_key PRIMARY KEY (a, b))")
            try await db.execute("INSERT INTO items VALUES (1, 'milk')")
            try await db.execute("INSERT INTO pairs VALUES (1, 2)")
            let duplicate = await #expect(throws: ConstraintViolation.self) {
                try await db.execute("INSERT INTO items VALUES (1, 'bread')")
            }
            #expect(duplicate?.kind == .primaryKey)
            #expect(duplicate?.columns == ["id"])
            // A primary key with a name of its own.
            let named = await #expect(throws: ConstraintViolation.self) {
                try await db.execute("INSERT INTO pairs VALUES (1, 2)")
            }
            #expect(named?.kind == .primaryKey)
            #expect(named?.columns == ["a", "b"])
            // Inside a transaction, which the failure aborts.
            let inTransaction = await #expect(throws: ConstraintViolation.self) {
                try await db.transaction { tx in try await tx.execute("INSERT INTO items VALUES (1, 'bread')") }
            }
            #expect(inTransaction?.kind == .primaryKey)
            // A unique column stays unique.
            let unique = await #expect(throws: ConstraintViolation.self) {
                try await db.execute("INSERT INTO items VALUES (2, 'milk')")
            }
            #expect(unique?.kind == .unique)
        }
    }
}
