import Foundation
import QueryCache
import Testing

// The README's `QueryCache` example. ArticleCodeTests in SQLiteTests checks that the README's
// blocks appear here.

enum READMEExample {
    struct Player: Sendable, Equatable {
        var id: Int
        var name: String
    }

    struct PlayerQuery: QueryRequest, Hashable {
        let id: Int
        var path: QueryPath { ["players", id] }

        func fetch(in context: QueryContext, with continuation: QueryContinuation<Player>) async throws -> Player {
            Player(id: id, name: "Ada")  // in a program: a call to a service
        }
    }
}

@Suite struct READMETests {
    typealias PlayerQuery = READMEExample.PlayerQuery

    @Test(.timeLimit(.minutes(1))) func example() async throws {
        let client = QueryClient()
        let store = client.store(for: PlayerQuery(id: 1))
        let player = try await store.fetch()  // deduplicated, retried with Fibonacci backoff
        client.invalidate(matching: ["players"])  // every player's value is stale now

        #expect(player == READMEExample.Player(id: 1, name: "Ada"))
        #expect(store.isStale)
        let other = client.store(for: PlayerQuery(id: 2))
        _ = try await other.fetch()
        client.invalidate(matching: ["players", 2])
        #expect(other.isStale)
    }
}
