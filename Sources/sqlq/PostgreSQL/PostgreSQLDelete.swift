#if PostgreSQL
    import PostgreSQL
    import QueryBuilder
    import SQLRecords
    import SQLite

    /// `sqlq delete` on a PostgreSQL server: the filter compiled as for `query`, the count
    /// confirmed as on SQLite, then the rows deleted in one transaction that recounts them first,
    /// at `REPEATABLE READ`: the delete sees the rows the recount saw, and no row committed
    /// since (a writer that held the table while the delete waited for it), and a row changed
    /// meanwhile by another transaction fails the delete rather than let it go uncounted.
    enum PostgreSQLDelete {
        /// Deletes the rows of `name` that match every one of `filters`. On the main actor, whose
        /// thread is none of the concurrency pool's: the connection's statements block it.
        @MainActor
        static func run(_ url: DatabaseURL, table name: String, filters: [String], yes: Bool) async throws {
            let connection = try PostgreSQLConnection(url)
            defer { connection.close() }
            let table = try PostgreSQLTable(connection, table: name)
            let condition = try Self.condition(
                try PostgreSQLFilter.compile(filters, table: table, foreignKeys: PostgreSQLForeignKeys(connection)))
            let countSQL = "SELECT count(*) FROM \(table.quotedName) WHERE \(condition.sql)"
            let deleteSQL = "DELETE FROM \(table.quotedName) WHERE \(condition.sql)"
            let arguments = condition.arguments
            let count = try Self.failing("nothing was deleted") {
                try Self.count(connection.fetchAll(countSQL, arguments))
            }
            let output = OutputStream(fileDescriptor: 1)
            defer { output.flush() }
            guard count > 0 else {
                output.writeLine(DeleteCommand.noMatch(table.name))
                return
            }
            try await DeleteCommand.confirm(count, of: table.name, filters: filters, yes: yes)
            let deleted = try Self.failing("nothing was deleted") {
                try connection.transaction { transaction in
                    try await transaction.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
                    let now = try Self.count(await transaction.fetchAll(countSQL, arguments))
                    guard now == count else { throw DeleteCommand.changed(now: now, confirmed: count) }
                    let deleted = try await transaction.execute(deleteSQL, arguments)
                    guard deleted == count else { throw DeleteCommand.changed(now: deleted, confirmed: count) }
                    return deleted
                }
            }
            output.writeLine(DeleteCommand.summary(deleted, from: table.name))
        }

        /// The filter as PostgreSQL SQL, for a `WHERE` clause, and the values it binds.
        static func condition(_ filter: SQLExpression) throws -> (sql: String, arguments: [DatabaseValue]) {
            let renderer = SQLRenderer(dialect: .postgreSQL)
            renderer.append(filter)
            try renderer.checkValues()
            if let unsupported = renderer.unsupported {
                throw CommandError.usage("\(unsupported) is not available on PostgreSQL")
            }
            return (renderer.sql, renderer.arguments)
        }

        private static func count(_ rows: [Row]) throws -> Int {
            guard let value = rows.first?.value(at: 0), case .integer(let count) = value else {
                throw CommandError.failure("PostgreSQL returned no count of the matching rows")
            }
            return Int(count)
        }

        /// Runs `body`, reporting what the server refused (a foreign key still referencing a
        /// row, say) with its message, the constraint it names, and the SQL, then `outcome`.
        private static func failing<T>(_ outcome: String, _ body: () throws -> T) throws -> T {
            do {
                return try body()
            } catch let violation as ConstraintViolation {
                throw CommandError.failure("\(violation.underlying)\n  \(outcome)")
            } catch let error as PostgreSQLTimeLimitError {
                throw CommandError.failure("\(error)\n  \(outcome)")
            } catch let error as PostgreSQLError where error.sqlState == "40001" {
                throw CommandError.failure(
                    "another transaction changed or deleted matching rows while they were being deleted\n  \(outcome); "
                        + "run the command again to count them anew")
            } catch let error as PostgreSQLError {
                throw CommandError.failure("\(error)\n  \(outcome)")
            }
        }
    }
#else
    /// Without the `PostgreSQL` trait, sqlq deletes from SQLite files only, and says so for a URL.
    enum PostgreSQLDelete {
        static func run(_ url: DatabaseURL, table name: String, filters: [String], yes: Bool) async throws {
            throw CommandError.usage("this sqlq was built without the PostgreSQL trait, so it reads SQLite files only")
        }
    }
#endif
