// TEMPORARY local stand-in, replaced by the real listener before commit.
import Locking
import PostgresNIO

final class ChangeListener: Sendable {
    enum Event: Sendable {
        case listening
        case changed(table: String)
        case lost(PostgreSQLError)
    }
    final class Subscription: Sendable {
        let cancelAction: @Sendable () -> Void
        init(_ c: @escaping @Sendable () -> Void) { cancelAction = c }
        func cancel() { cancelAction() }
    }
    let configuration: PostgreSQLDatabase.Configuration
    let handlers = Lock<[Int: @Sendable (Event) -> Void]>([:])
    let next = Lock(0)
    let task = Lock<Task<Void, Never>?>(nil)
    init(configuration: PostgreSQLDatabase.Configuration) { self.configuration = configuration }
    static func shared(for configuration: PostgreSQLDatabase.Configuration) -> ChangeListener {
        ChangeListener(configuration: configuration)
    }
    func subscribe(_ handler: @escaping @Sendable (Event) -> Void) -> Subscription {
        let id = next.withLock {
            $0 += 1
            return $0
        }
        handlers.withLock { $0[id] = handler }
        let config = configuration
        let t = Task {
            guard
                let conn = try? await PostgresConnection.connect(
                    configuration: config.connectionConfiguration(), id: 1, logger: Session.logger)
            else { return }
            do {
                try await conn.listen(on: PostgreSQLDatabase.changeChannel) { seq in
                    handler(.listening)
                    for try await n in seq { handler(.changed(table: n.payload)) }
                }
            } catch {}
            try? await conn.close()
        }
        return Subscription { [handlers] in
            handlers.withLock { _ = $0.removeValue(forKey: id) }
            t.cancel()
        }
    }
}
extension PostgreSQLDatabase {
    static let changeChannel = "live_query_changes"
    public func installChangeNotifications(on tables: [String]) async throws {
        try await execute(
            """
            CREATE OR REPLACE FUNCTION live_query_notify() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN PERFORM pg_notify('live_query_changes', TG_TABLE_NAME); RETURN NULL; END $$
            """)
        for t in tables {
            try await execute(
                "CREATE OR REPLACE TRIGGER live_query_notify AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON \"\(t)\" FOR EACH STATEMENT EXECUTE FUNCTION live_query_notify()"
            )
        }
    }
}
