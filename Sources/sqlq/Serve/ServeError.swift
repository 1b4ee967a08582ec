#if HTTP
    import ArgumentParser
    import Hummingbird
    import CSQLite
    import SQLite

    /// A request `serve` cannot answer with what was asked: a message for the person who sent it,
    /// and the status: 400 for anything about the request, 404 for what is not there, 503 while
    /// the server cannot read the database; and headers the answer carries, such as `Retry-After`.
    struct ServeError: Error, CustomStringConvertible {
        var status: HTTPResponse.Status
        var message: String
        var headers: HTTPFields

        init(_ status: HTTPResponse.Status, _ message: String, headers: HTTPFields = [:]) {
            self.status = status
            self.message = message
            self.headers = headers
        }

        var description: String { message }

        /// Any error a request's handling threw, as the answer to give: bad input of every kind
        /// (a filter, a column, an option, a page token) is 400 with sqlq's own message, an unknown
        /// table 404, and a failure of the database 503. Never 500.
        static func from(_ error: any Error) -> ServeError {
            switch error {
            case let error as ServeError: error
            case let error as ValidationError: ServeError(.badRequest, error.message)
            case let error as ByteBudget.Exceeded: ServeError(.contentTooLarge, error.description)
            case let error as SQLiteError where error.code == SQLITE_TOOBIG:
                ServeError(.contentTooLarge, ByteBudget.Exceeded(limit: ByteBudget.serve.limit).description)
            case let error as SchemaError where error.kind == .unknownTable: ServeError(.notFound, "\(error)")
            case is FilterError, is SchemaError, is CommandError: ServeError(.badRequest, "\(error)")
            case let error as SQLiteError:
                // SQLite refuses bad values here (a pattern too complex, a string too long), and
                // a damaged or locked file: which one is the database's fault it says itself.
                DatabaseOptions.isDatabaseFailure(error)
                    ? ServeError(.serviceUnavailable, "the database failed: \(error.message)")
                    : ServeError(.badRequest, error.message)
            default:
                ServeError(.badRequest, ExitStatus.message(for: error))
            }
        }
    }
#endif
