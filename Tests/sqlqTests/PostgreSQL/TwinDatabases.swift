#if PostgreSQL
    import Foundation
    import PostgreSQL
    import PostgreSQLTestServer
    import SQLite

    /// The same tables and rows in an SQLite file and on PostgreSQL, made by statements both read,
    /// for tests that run one `sqlq` command on each and compare what they print.
    struct TwinDatabases {
        let files: TemporaryDirectory
        let path: String
        let postgreSQL: PostgreSQLFixture

        /// Runs `statements` on both databases, then `postgreSQLOnly` on PostgreSQL.
        static func make(_ statements: [String], postgreSQLOnly: [String] = []) async throws -> TwinDatabases {
            let files = try TemporaryDirectory()
            let path = files.file("twin.sqlite").path
            let sqlite = try Database(path: path)
            for statement in statements { try sqlite.execute(statement) }
            let postgreSQL = try await PostgreSQLFixture.make(statements + postgreSQLOnly)
            return TwinDatabases(files: files, path: path, postgreSQL: postgreSQL)
        }

        /// `sqlq` with `arguments` on the SQLite file, then on PostgreSQL.
        func run(_ arguments: [String]) async throws -> (sqlite: CommandResult, postgreSQL: CommandResult) {
            let sqlite = try await TestServer.sqlq(arguments + ["--db", path])
            return (sqlite, try await postgreSQL.run(arguments))
        }
    }
#endif
