/// The statements of one ``PostgreSQLDatabase/transaction(_:)``, all on its connection, between
/// its `BEGIN` and its `COMMIT` or `ROLLBACK`. Use it only inside the closure it is handed to.
public struct PostgreSQLTransaction: Sendable {
    @_spi(Session) public let session: Session

    /// Runs `body` on the transaction's session.
    @_spi(Session) public func withSession<T: Sendable>(
        sql: String?, _ body: (Session) async throws -> T
    ) async throws -> T {
        try await body(session)
    }
}
