#if PostgreSQL
    import PostgreSQL
    import SQLite

    extension PostgreSQLConnection {
        /// Every row of each statement, all read in one read-only transaction that sees one
        /// snapshot of the database: a query's rows and its facets count the same rows, as in
        /// SQLite's one read transaction.
        func fetchAll(inOneSnapshot statements: [(sql: String, arguments: [DatabaseValue])]) throws -> [[Row]] {
            let database = database
            let statements = statements.map { Statement(sql: $0.sql, arguments: $0.arguments) }
            return try Self.wait {
                try await database.transaction { transaction in
                    try await transaction.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
                    var results: [[Row]] = []
                    for statement in statements {
                        results.append(try await transaction.fetchAll(statement.sql, statement.arguments))
                    }
                    return results
                }
            }
        }

        private struct Statement: Sendable {
            var sql: String
            var arguments: [DatabaseValue]
        }
    }
#endif
