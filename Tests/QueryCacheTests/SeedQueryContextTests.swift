// The examples of the "Utilizing the QueryContext" page, as written, with these adaptations:
// - Bodies the page elides (`// Fetch...`) return a `Player` so they compile.
// - The page uses both argument labels, `with continuation:` and `using continuation:`;
//   `QueryRequest` accepts either, so both appear here as written.
// - On Linux `URLSession` has `data(for:delegate:)` with a defaulted argument, which cannot
//   witness `data(for:)`, so the conformance forwards explicitly; `URLResponse` comes from
//   FoundationNetworking.
// - The page calls `data(url:)`, which neither `URLSession` nor `HTTPDataTransport` has; the
//   query calls `data(for: URLRequest(url: url))`.
// - `DataTransportKey.defaultValue` is declared `any HTTPDataTransport` so the setter, which
//   assigns an `any HTTPDataTransport`, type-checks.
// - The clock and delayer examples also install `MockDataTransport`, so no test touches the
//   network.

import Foundation
import QueryCache
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// MARK: - Queries reading the context

struct Player: Sendable, Equatable {
    var id: Int
    var note = ""
}

struct PlayerQuery: QueryRequest, Hashable {
    let id: Int

    func fetch(
        in context: QueryContext,
        using continuation: QueryContinuation<Player>
    ) async throws -> Player {
        // We can use the context in here...
        Player(id: id, note: "retry \(context.retryIndex)")
    }
}

struct RetryAwarePlayerQuery: QueryRequest, Hashable {
    let id: Int

    func fetch(
        in context: QueryContext,
        using continuation: QueryContinuation<Player>
    ) async throws -> Player {
        if context.retryIndex > 0 {
            // Fetch considering how many times we've retried...
            return Player(id: id, note: "after \(context.retryIndex) retries")
        } else {
            // Fetch normally...
            throw TestError(message: "first attempt fails")
        }
    }
}

extension QueryContext {
    var customProperty: String {
        get { self[CustomPropertyKey.self] }
        set { self[CustomPropertyKey.self] = newValue }
    }

    private enum CustomPropertyKey: Key {
        static let defaultValue: String = "hello!"
    }
}

struct CustomPropertyPlayerQuery: QueryRequest, Hashable {
    let id: Int

    func fetch(
        in context: QueryContext,
        using continuation: QueryContinuation<Player>
    ) async throws -> Player {
        if context.customProperty == "hello!" {
            // Fetch...
            return Player(id: id, note: "default")
        } else {
            // Fetch Differently...
            return Player(id: id, note: context.customProperty)
        }
    }
}

let expensiveComputations = Counter()

func someExpensiveComputation() -> String {
    expensiveComputations.increment()
    return "expensive"
}

extension QueryContext {
    var myExpensiveProperty: String {
        get { self[MyExpensiveLazyPropertyKey.self] }
        set { self[MyExpensiveLazyPropertyKey.self] = newValue }
    }

    private enum MyExpensiveLazyPropertyKey: Key {
        static let defaultValue = someExpensiveComputation()
    }
}

// MARK: - Setting up the context

struct SomeQuery: QueryRequest, Hashable {
    func setup(context: inout QueryContext) {
        context.customProperty = "new value"
    }

    func fetch(
        in context: QueryContext,
        with continuation: QueryContinuation<String>
    ) async throws -> String {
        context.customProperty
    }
}

struct NoRetryQuery: QueryRequest, Hashable {
    let attempts = Counter()

    static func == (lhs: Self, rhs: Self) -> Bool { true }
    func hash(into hasher: inout Hasher) {}

    func setup(context: inout QueryContext) {
        context.maxRetries = 0  // Disable retries for this query.
    }

    func fetch(
        in context: QueryContext,
        with continuation: QueryContinuation<Int>
    ) async throws -> Int {
        attempts.increment()
        throw TestError()
    }
}

// MARK: - Dependency injection

struct Post: Codable, Sendable, Equatable {
    let id: Int
    let userId: Int
    let title: String
    let body: String
}

extension Post {
    static func query(for id: Int) -> some QueryRequest<Self, Query.State> {
        Query(id: id)
    }

    struct Query: QueryRequest, Hashable {
        let id: Int

        func fetch(
            in context: QueryContext,
            with continuation: QueryContinuation<Post>
        ) async throws -> Post {
            let url = URL(
                string: "https://jsonplaceholder.typicode.com/posts/\(id)"
            )!
            let (data, _) = try await context.dataTransport.data(for: URLRequest(url: url))
            return try JSONDecoder().decode(Post.self, from: data)
        }
    }
}

protocol HTTPDataTransport: Sendable {
    func data(for request: URLRequest) async throws -> (Data, URLResponse)
}

extension URLSession: HTTPDataTransport {
    func data(for request: URLRequest) async throws -> (Data, URLResponse) {
        try await data(for: request, delegate: nil)
    }
}

extension QueryContext {
    var dataTransport: any HTTPDataTransport {
        get { self[DataTransportKey.self] }
        set { self[DataTransportKey.self] = newValue }
    }

    private enum DataTransportKey: Key {
        static let defaultValue: any HTTPDataTransport = URLSession.shared
    }
}

struct MockDataTransport: HTTPDataTransport {
    func data(for request: URLRequest) async throws -> (Data, URLResponse) {
        let mockJSON = """
            {
              "userId": 1,
              "id": 1,
              "title": "Mock Title",
              "body": "This is the body of the mock post."
            }
            """
        let data = mockJSON.data(using: .utf8)!
        let response = HTTPURLResponse(
            url: request.url!,
            statusCode: 200,
            httpVersion: nil,
            headerFields: ["Content-Type": "application/json"]
        )!
        return (data, response)
    }
}

/// Fails a given number of times before delegating to `MockDataTransport`.
final class FlakyDataTransport: HTTPDataTransport {
    let failures: Int
    let calls = Counter()

    init(failures: Int) { self.failures = failures }

    func data(for request: URLRequest) async throws -> (Data, URLResponse) {
        if calls.increment() <= failures { throw URLError(.notConnectedToInternet) }
        return try await MockDataTransport().data(for: request)
    }
}

// MARK: - Tests

@Suite("Seed: Utilizing the QueryContext")
struct SeedQueryContextTests {
    @Test("Queries written with `using continuation:` read the context")
    func usingLabel() async throws {
        let store = QueryStore.detached(query: PlayerQuery(id: 7), initialValue: nil)
        store.context.queryDelayer = .noDelay
        #expect(try await store.fetch() == Player(id: 7, note: "retry 0"))
    }

    @Test("retryIndex lets a query behave differently on retries")
    func retryIndex() async throws {
        let store = QueryStore.detached(query: RetryAwarePlayerQuery(id: 1), initialValue: nil)
        store.context.queryDelayer = .noDelay
        #expect(try await store.fetch() == Player(id: 1, note: "after 1 retries"))
    }

    @Test("Custom context properties have defaults and can be overridden")
    func customProperty() async throws {
        let store = QueryStore.detached(query: CustomPropertyPlayerQuery(id: 1), initialValue: nil)
        #expect(try await store.fetch().note == "default")
        store.context.customProperty = "custom"
        #expect(try await store.fetch().note == "custom")
    }

    @Test("A static let default value is computed once")
    func lazyDefault() {
        let context = QueryContext()
        _ = context.myExpensiveProperty
        _ = context.myExpensiveProperty
        _ = QueryContext().myExpensiveProperty
        #expect(expensiveComputations.count == 1)
    }

    @Test("setup(context:) runs when the store is created")
    func setup() async throws {
        let store = QueryStore.detached(query: SomeQuery(), initialValue: nil)
        #expect(store.context.customProperty == "new value")
        #expect(try await store.fetch() == "new value")
    }

    @Test("Setting maxRetries to 0 in setup disables retries")
    func noRetries() async throws {
        let query = NoRetryQuery()
        let store = QueryStore.detached(query: query, initialValue: nil)
        store.context.queryDelayer = .noDelay
        await #expect(throws: TestError.self) { try await store.fetch() }
        #expect(query.attempts.count == 1)
        #expect(store.error is TestError)
    }

    @Test
    func returnsPost() async throws {
        let store = QueryStore.detached(
            query: Post.query(for: 1),
            initialValue: nil
        )
        store.context.dataTransport = MockDataTransport()

        let post = try await store.fetch()
        let expectedPost = Post(
            id: 1,
            userId: 1,
            title: "Mock Title",
            body: "This is the body of the mock post."
        )
        #expect(post == expectedPost)
    }

    @Test("Overriding time with a custom clock")
    func overridingTime() async throws {
        let store = QueryStore.detached(
            query: Post.query(for: 1),
            initialValue: nil
        )
        store.context.dataTransport = MockDataTransport()
        let date = Date(timeIntervalSince1970: 1_234_567_890)
        store.context.queryClock = .custom { date }

        try await store.fetch()

        #expect(store.valueLastUpdatedAt == date)
    }

    @Test("Overriding delays: retries with .noDelay finish without waiting")
    func overridingDelays() async throws {
        let store = QueryStore.detached(
            query: Post.query(for: 1),
            initialValue: nil
        )
        let transport = FlakyDataTransport(failures: 3)
        store.context.dataTransport = transport
        store.context.queryDelayer = .noDelay

        try await store.fetch()  // Will incur no retry delays.
        #expect(transport.calls.count == 4)
        #expect(store.currentValue?.title == "Mock Title")
    }

    @Test("The default delayer uses Fibonacci backoff")
    func fibonacciBackoff() async throws {
        let store = QueryStore.detached(query: Post.query(for: 1), initialValue: nil)
        store.context.dataTransport = FlakyDataTransport(failures: 3)
        let delayer = RecordingDelayer()
        store.context.queryDelayer = delayer
        try await store.fetch()
        #expect(delayer.delays == [1, 1, 2])
        #expect(QueryContext().queryDelayer is TaskSleepQueryDelayer)
    }
}
