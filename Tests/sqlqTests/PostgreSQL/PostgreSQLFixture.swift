#if PostgreSQL
    import Foundation
    import PostgreSQL
    import PostgreSQLTestServer
    import Testing

    extension Trait where Self == ConditionTrait {
        /// Skips a suite where no PostgreSQL server can be started for it.
        static var postgreSQLInstalled: Self {
            .enabled(
                if: TestServer.binaries != nil,
                """
                PostgreSQL's server binaries (initdb, pg_ctl) were not found under /usr/lib/postgresql/*/bin: \
                install the postgresql package (apt-get install postgresql) to run these tests
                """)
        }
    }

    /// A new, empty database on the tests' PostgreSQL server, and the URL sqlq reaches it by.
    struct PostgreSQLFixture {
        let url: String
        let database: PostgreSQLDatabase

        /// A database made by `statements`, run one by one.
        static func make(_ statements: [String]) async throws -> PostgreSQLFixture {
            let configuration = try await TestServer.makeConfiguration()
            guard case .unixSocket(let directory, let port) = configuration.address else {
                throw TestServerError("the test server listens on a unix socket")
            }
            let database = try await PostgreSQLDatabase(configuration)
            for statement in statements { try await database.execute(statement) }
            return PostgreSQLFixture(
                url: "postgresql://\(configuration.user)@/\(configuration.database)?host=\(directory)&port=\(port)",
                database: database)
        }

        /// `sqlq` with `--db` this database, run off the concurrency pool.
        func run(_ arguments: [String], environment: [String: String] = [:]) async throws -> CommandResult {
            let url = url
            return try await TestServer.offPool {
                try Executable.run(arguments + ["--db", url], environment: environment)
            }
        }

        func close() async {
            await database.close()
        }
    }

    extension TestServer {
        /// `sqlq` with `arguments` as they are, run off the concurrency pool.
        static func sqlq(_ arguments: [String], environment: [String: String] = [:]) async throws -> CommandResult {
            try await offPool { try Executable.run(arguments, environment: environment) }
        }
    }
#endif
