#if HTTP
    import ArgumentParser
    import Hummingbird
    import SQLite

    /// A request `serve` cannot answer with what was asked: a message for the person who sent it,
    /// and the status: 400 for anything about the request, 404 for what is not there.
    struct ServeError: Error, CustomStringConvertible {
        var status: HTTPResponse.Status
        var message: String

        init(_ status: HTTPResponse.Status, _ message: String) {
            self.status = status
            self.message = message
        }

        var description: String { message }

        /// Any error a request's handling threw, as the answer to give: bad input of every kind
        /// (a filter, a column, an option, a page token) is 400 with sqlq's own message, an unknown
        /// table 404, and a failure of the database 503. Never 500.
        static func from(_ error: any Error) -> ServeError {
            switch error {
            case let error as ServeError: error
            case let error as ValidationError: ServeError(.badRequest, error.message)
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
