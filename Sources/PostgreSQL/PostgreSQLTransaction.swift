/// The statements of one ``PostgreSQLDatabase/transaction(_:)``, all on its connection, between
/// its `BEGIN` and its `COMMIT` or `ROLLBACK`. Use it only inside the closure it is handed to.
public struct PostgreSQLTransaction: Sendable {
    @_spi(Session) public let session: Session
}
