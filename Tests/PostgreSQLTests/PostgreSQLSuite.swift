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
