import AsyncHTTPClient
import Foundation
import Hummingbird
import LiveHTTP
@_exported import LiveValueTesting
import Locking
import Logging
import Observation
import ServiceLifecycle
import SharingSQLite
import Testing

// A real server on 127.0.0.1 and a port the system picks, real clients over real sockets, and
// every wait bounded by `hangLimit`.

/// A running server, and an HTTP client for it.
struct TestServer: Sendable {
    let port: Int
    let client: HTTPClient
    let services: ServiceGroup

    /// Starts the server's graceful shutdown.
    func shutDown() async { await services.triggerGracefulShutdown() }

    func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// A plain request whose whole body is read: for the answers that are not streams.
    func get(_ path: String) async throws -> (status: Int, headers: [String: String], body: String) {
        let response = try await client.execute(HTTPClientRequest(url: url(path)), timeout: .seconds(20))
        let body = try await response.body.collect(upTo: 1 << 20)
        return (Int(response.status.code), lowercasedHeaders(response), String(buffer: body))
    }

    /// A client of the event stream at `path`, connected once the response's head arrived.
    func events(_ path: String, lastEventID: String? = nil) async throws -> EventStreamClient {
        var request = HTTPClientRequest(url: url(path))
        if let lastEventID { request.headers.add(name: "Last-Event-ID", value: lastEventID) }
        let response = try await client.execute(request, timeout: .seconds(20))
        return EventStreamClient(response)
    }
}

/// Runs `body` against a server of `router`'s routes, then shuts the server down gracefully:
/// open event streams must end for that to finish.
func withServer<T: Sendable>(
    _ router: Router<BasicRequestContext>, _ body: @Sendable (TestServer) async throws -> T
) async throws -> T {
    var logger = Logger(label: "LiveHTTPTests")
    logger.logLevel = .warning
    let (ports, port) = AsyncStream<Int>.makeStream()
    let app = Application(
        router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
        onServerRunning: { channel in
            port.yield(channel.localAddress?.port ?? 0)
            port.finish()
        },
        logger: logger)
    let services = ServiceGroup(services: [app], logger: logger)
    var configuration = HTTPClient.Configuration()
    configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 64)
    let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    return try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { try await services.run() }
        let result: Result<T, any Error>
        if let port = await first(of: ports), port > 0 {
            result = await Result { try await body(TestServer(port: port, client: client, services: services)) }
        } else {
            result = .failure(TimedOut(description: "the server did not start"))
        }
        try await client.shutdown()
        await services.triggerGracefulShutdown()
        group.addTask {
            try await Task.sleep(for: hangLimit)
            throw TimedOut(description: "the server's graceful shutdown took longer than \(hangLimit)")
        }
        // The server's end, or the time limit's.
        try await group.next()
        group.cancelAll()
        return try result.get()
    }
}

extension Result where Failure == any Error {
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}

/// The first element of `stream`, waiting at most `hangLimit`.
func first<T: Sendable>(of stream: AsyncStream<T>) async -> T? {
    try? await within(hangLimit, "a first element") {
        for await element in stream { return element }
        return nil
    }
}

/// `body`'s result, or `TimedOut` if it takes longer than `limit` (`body` is then cancelled).
func within<T: Sendable>(
    _ limit: Duration, _ what: String, _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: limit)
            return nil
        }
        defer { group.cancelAll() }
        guard let value = try await group.next() ?? nil else {
            throw TimedOut(description: "waited \(limit) for \(what), in vain")
        }
        return value
    }
}

/// Waits, through Observation, until `condition` (which reads the streams' counts) holds.
func until(
    _ streams: LiveEventStreams, _ what: String, _ condition: @escaping @Sendable (LiveEventStreams) -> Bool
) async throws {
    try await within(hangLimit, what) {
        while !Task.isCancelled {
            let once = Once()
            let satisfied = await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                    once.arm(continuation)
                    let done = withObservationTracking {
                        condition(streams)
                    } onChange: {
                        once.resume(false)
                    }
                    if done || condition(streams) { once.resume(true) }
                }
            } onCancel: {
                once.resume(false)
            }
            if satisfied { return }
        }
        throw CancellationError()
    }
}

/// Resumes a continuation once, whoever comes first: the condition, a change, or cancellation.
private final class Once: Sendable {
    private let state = Lock<(continuation: CheckedContinuation<Bool, Never>?, answer: Bool?)>((nil, nil))

    func arm(_ continuation: CheckedContinuation<Bool, Never>) {
        let answer = state.withLock { state -> Bool? in
            if state.answer == nil { state.continuation = continuation }
            return state.answer
        }
        if let answer { continuation.resume(returning: answer) }
    }

    func resume(_ value: Bool) {
        state.withLock { state -> CheckedContinuation<Bool, Never>? in
            guard state.answer == nil else { return nil }
            state.answer = value
            defer { state.continuation = nil }
            return state.continuation
        }?.resume(returning: value)
    }
}

/// What an event stream carries: events, and comments such as heartbeats.
enum StreamItem: Sendable, Equatable {
    case event(ServerEvent)
    case comment(String)
}

struct ServerEvent: Sendable, Equatable {
    var type: String?
    var id: String?
    var data: String

    func decoded<T: Decodable>(as type: T.Type) throws -> T {
        try JSONDecoder().decode(T.self, from: Data(data.utf8))
    }
}

/// A client of an event stream that parses what arrives into items, as an `EventSource` would.
/// It reads only while not paused: a paused client reads nothing more from its socket, as a slow
/// client would, and the server then has to wait for it or skip.
final class EventStreamClient: Sendable {
    private struct State {
        var items: [StreamItem] = []
        /// Where `next` reads next.
        var cursor = 0
        var isFinished = false
        var isPaused = false
        var waiters: [CheckedContinuation<Void, Never>] = []
        var resume: CheckedContinuation<Void, Never>?
    }

    let status: Int
    /// The response's header fields, by lowercased name.
    let headers: [String: String]
    private let state = Lock(State())
    private let reading = Lock<Task<Void, Never>?>(nil)

    init(_ response: HTTPClientResponse) {
        status = Int(response.status.code)
        headers = lowercasedHeaders(response)
        let task = Task { [state] in
            var parser = EventStreamParser()
            do {
                for try await buffer in response.body {
                    let items = parser.parse(Array(buffer.readableBytesView))
                    let (waiters, paused) = state.withLock { state in
                        state.items += items
                        defer { state.waiters = [] }
                        return (state.waiters, state.isPaused)
                    }
                    for waiter in waiters { waiter.resume() }
                    if paused {
                        await withCheckedContinuation { continuation in
                            let go = state.withLock { state in
                                guard state.isPaused else { return true }
                                state.resume = continuation
                                return false
                            }
                            if go { continuation.resume() }
                        }
                    }
                }
            } catch {}
            let waiters = state.withLock { state in
                state.isFinished = true
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters { waiter.resume() }
        }
        reading.withLock { $0 = task }
    }

    deinit { close() }

    /// Closes the connection.
    func close() {
        reading.withLock { $0 }?.cancel()
        resumeReading()
    }

    /// Stops reading from the socket, after the chunk being read.
    func pause() { state.withLock { $0.isPaused = true } }

    func resumeReading() {
        state.withLock { state in
            state.isPaused = false
            defer { state.resume = nil }
            return state.resume
        }?.resume()
    }

    /// The next item, or `nil` when the stream ended.
    func nextItem() async throws -> StreamItem? {
        try await within(hangLimit, "an item of the event stream") { [self] in
            while true {
                let next = state.withLock { state -> StreamItem?? in
                    if state.cursor < state.items.count {
                        state.cursor += 1
                        return .some(state.items[state.cursor - 1])
                    }
                    return state.isFinished ? .some(nil) : nil
                }
                if let next { return next }
                try Task.checkCancellation()
                await withTaskCancellationHandler {
                    await withCheckedContinuation { continuation in
                        let ready = state.withLock { state in
                            // Cancellation is set before its handler runs: a wait that starts
                            // after the handler ran must not start.
                            if state.cursor < state.items.count || state.isFinished || Task.isCancelled { return true }
                            state.waiters.append(continuation)
                            return false
                        }
                        if ready { continuation.resume() }
                    }
                } onCancel: {
                    let waiters = state.withLock { state in
                        defer { state.waiters = [] }
                        return state.waiters
                    }
                    for waiter in waiters { waiter.resume() }
                }
            }
        }
    }

    /// The next event, skipping comments; throws if the stream ends first.
    func nextEvent() async throws -> ServerEvent {
        while let item = try await nextItem() {
            if case .event(let event) = item { return event }
        }
        throw StreamEnded()
    }

    /// The next comment, skipping events.
    func nextComment() async throws -> String {
        while let item = try await nextItem() {
            if case .comment(let comment) = item { return comment }
        }
        throw StreamEnded()
    }

    /// Whether the stream ended (after `nil` from `nextItem`).
    var isFinished: Bool { state.withLock { $0.isFinished } }
}

struct StreamEnded: Error {}

func lowercasedHeaders(_ response: HTTPClientResponse) -> [String: String] {
    Dictionary(response.headers.map { ($0.name.lowercased(), $0.value) }) { first, _ in first }
}

/// The `text/event-stream` format: lines of `field: value`, events ended by a blank line,
/// comments starting with a colon.
struct EventStreamParser {
    private var line: [UInt8] = []
    private var event = ServerEvent(type: nil, id: nil, data: "")
    private var dataLines: [String] = []
    private var hasFields = false

    mutating func parse(_ bytes: [UInt8]) -> [StreamItem] {
        var items: [StreamItem] = []
        var rest = bytes[...]
        while let newline = rest.firstIndex(of: UInt8(ascii: "\n")) {
            line += rest[..<newline]
            rest = rest[rest.index(after: newline)...]
            if let item = take(String(decoding: line, as: UTF8.self)) { items.append(item) }
            line = []
        }
        line += rest
        return items
    }

    /// Takes a line; returns the item it ends, if any.
    private mutating func take(_ text: String) -> StreamItem? {
        if text.isEmpty {
            defer { (event, dataLines, hasFields) = (ServerEvent(type: nil, id: nil, data: ""), [], false) }
            guard hasFields else { return nil }
            event.data = dataLines.joined(separator: "\n")
            return .event(event)
        }
        if text.hasPrefix(":") { return .comment(String(text.dropFirst()).trimmingCharacters(in: .whitespaces)) }
        let (field, value) = split(text)
        hasFields = true
        switch field {
        case "event": event.type = value
        case "id": event.id = value
        case "data": dataLines.append(value)
        default: break
        }
        return nil
    }

    private func split(_ line: String) -> (String, String) {
        guard let colon = line.firstIndex(of: ":") else { return (line, "") }
        var value = line[line.index(after: colon)...]
        if value.first == " " { value = value.dropFirst() }
        return (String(line[..<colon]), String(value))
    }
}

// MARK: The database

/// A row of the test table, sent as JSON.
struct ListItem: Codable, Equatable, Sendable, FetchableRow {
    var id: Int64
    var title: String
    var list: Int64
}

/// A database file with lists 1 and 2 of items.
func makeItemsDatabase() async throws -> (DatabasePool, String) {
    let path = temporaryDatabasePath()
    let pool = try DatabasePool(path: path)
    try await pool.write { db in
        try db.execute("CREATE TABLE items(id INTEGER PRIMARY KEY, title TEXT NOT NULL, list INTEGER NOT NULL)")
        try db.execute("INSERT INTO items(title, list) VALUES ('milk', 1), ('bread', 1), ('nails', 2)")
    }
    return (pool, path)
}

/// The items of `list`.
func itemsKey(list: Int, _ db: DatabasePool) -> SharedReaderKey<[ListItem]> {
    .fetchAll(
        "SELECT id, title, list FROM items WHERE list = ? ORDER BY id", arguments: [.integer(Int64(list))], database: db
    )
}

/// `items?list=N`, the items of a list: a 400 for anything but a list's number.
func itemsRouter(_ streams: LiveEventStreams, _ db: DatabasePool) -> Router<BasicRequestContext> {
    let router = Router()
    router.get("items", live: streams) { request, _ in
        guard let list = request.uri.queryParameters.get("list", as: Int.self) else {
            throw LiveRequestError("`list` must be the number of a list, such as ?list=1")
        }
        return itemsKey(list: list, db)
    }
    return router
}

let hasSQLiteShell = FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3")
