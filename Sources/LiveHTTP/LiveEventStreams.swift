import HTTPTypes
import Hummingbird
import LiveQuery
import Locking
import Observation
import ServiceLifecycle

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Serves live values as server-sent events: each response streams a key's value as JSON, then
/// every new value, for as long as the client stays.
///
/// ```swift
/// let live = LiveEventStreams()
/// router.get("items", live: live) { request, context in
///     .fetch(OpenItems(), database: db)
/// }
/// ```
///
/// Clients of equal keys share one `SharedReader`, and so one query per change, opened by the
/// first client and released when the last one leaves. Each value event has an `id:`, a number
/// that grows with each value and a digest of the value's JSON, so that a client that reconnects
/// with `Last-Event-ID` gets the current value at once if it has another one, and waits for the
/// next change if it has this one. A client that reads slowly gets the latest value and
/// skips the ones it had no time for: the server holds at most two events per client (a value
/// and an error), and a slow client never delays the others.
///
/// A failed fetch sends an `error` event, `{"message": "…"}`, and the stream goes on with the
/// last good value; the next good value is sent even if it did not change. A key whose first
/// load fails sends the `error` event and ends the stream (an `EventSource` then reconnects,
/// and tries again).
///
/// A stream ends when its client closes the connection, and when the server shuts down
/// gracefully. It needs a request read from a connection: HummingbirdTesting's `.router`
/// framework, which has none, cannot run it; its `.live` framework can. The instance is
/// `Observable`: its ``clientCount`` and ``queryCount`` can be watched.
public final class LiveEventStreams: Sendable {
    /// How the streams behave.
    public struct Configuration: Sendable {
        /// How often a `: keep-alive` comment goes to every client, so that proxies keep idle
        /// connections open; `nil` (or a duration that is not positive) sends none.
        public var heartbeatInterval: Duration?
        /// How many clients may stream at once; beyond, requests get 503 Service Unavailable.
        public var maximumClients: Int
        /// Encodes the values into each event's `data:`. Its output formatting always includes
        /// `.sortedKeys`: events are told apart by their JSON, so equal values must encode alike,
        /// and without it a keyed container's order can differ from one encoding to the next.
        public var encoder: JSONEncoder {
            didSet { encoder.outputFormatting.insert(.sortedKeys) }
        }
        /// What clients see of a load error, in the `error` event's `message`: by default the
        /// error's description. Return something shorter to keep SQL and paths from clients.
        public var errorMessage: @Sendable (any Error) -> String

        /// - Parameters:
        ///   - heartbeatInterval: the time between keep-alive comments; `nil` sends none.
        ///   - maximumClients: the cap on concurrent streams.
        ///   - encoder: the JSON encoder of the values; `.sortedKeys` is added to its formatting.
        ///   - errorMessage: the message of a load error's `error` event.
        public init(
            heartbeatInterval: Duration? = .seconds(15),
            maximumClients: Int = 1_000,
            encoder: JSONEncoder = JSONEncoder(),
            errorMessage: @escaping @Sendable (any Error) -> String = { String(describing: $0) }
        ) {
            self.heartbeatInterval = heartbeatInterval
            self.maximumClients = maximumClients
            encoder.outputFormatting.insert(.sortedKeys)
            self.encoder = encoder
            self.errorMessage = errorMessage
        }
    }

    private struct State {
        var channels: [AnyHashable: any AnyLiveChannel] = [:]
        var clientCount = 0
        var queryCount = 0
        var nextClientID = 0
    }

    /// The configuration the streams were made with.
    public let configuration: Configuration
    private let state = Lock(State())
    private let versions = EventVersions()
    private let registrar = ObservationRegistrar()

    /// Streams configured by `configuration`.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// How many clients are streaming.
    public var clientCount: Int {
        registrar.access(self, keyPath: \.clientCount)
        return state.withLock { $0.clientCount }
    }

    /// How many keys have a reader open for their clients: one per distinct key, until its
    /// reader is released.
    public var queryCount: Int {
        registrar.access(self, keyPath: \.queryCount)
        return state.withLock { $0.queryCount }
    }

    /// A response that streams `key`'s value to the client of `request`, as server-sent events.
    ///
    /// ```swift
    /// router.get("items/:list") { request, context in
    ///     let list = try context.parameters.require("list", as: Int.self)
    ///     return try live.response(streaming: .fetch(ListItems(list: list), database: db), for: request)
    /// }
    /// ```
    ///
    /// Throws an `HTTPError` with status 503 Service Unavailable when
    /// ``Configuration/maximumClients`` clients are streaming already.
    public func response<Value: Encodable & Sendable>(
        streaming key: SharedReaderKey<Value>, for request: Request
    ) throws -> Response {
        let slot = try reserveSlot()
        let lastEventID = request.headers[.lastEventID]
        let requestBody = request.body
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream"
        headers[.cacheControl] = "no-store"
        // Proxies that buffer responses (nginx) would hold the events back.
        headers[.accelBuffering] = "no"
        return Response(
            status: .ok, headers: headers,
            body: ResponseBody { writer in
                defer { slot.release() }
                try await self.stream(key, lastEventID: lastEventID, requestBody: requestBody, to: &writer)
            })
    }

    // MARK: Streaming

    private func stream<Value: Encodable & Sendable>(
        _ key: SharedReaderKey<Value>, lastEventID: String?, requestBody: RequestBody,
        to writer: inout any ResponseBodyWriter
    ) async throws {
        let mailbox = Mailbox()
        let (id, channel) = subscribe(key, mailbox, lastEventID: lastEventID)
        defer { unsubscribe(key, channel, client: id) }
        do {
            // Ends when the client closes the connection (which cancels the loop), when the
            // server shuts down gracefully, or when the key's first load failed.
            try await withGracefulShutdownHandler {
                try await requestBody.consumeWithCancellationOnInboundClose { _ in
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        if let interval = configuration.heartbeatInterval, interval > .zero {
                            group.addTask {
                                while true {
                                    try await Task.sleep(for: interval)
                                    mailbox.postHeartbeat()
                                }
                            }
                        }
                        while let events = await mailbox.next(heartbeat: ServerSentEvent.keepAlive) {
                            try await writer.write(contentsOf: events)
                        }
                        group.cancelAll()
                        // The mailbox ends early for a task cancelled by the client's leaving.
                        try Task.checkCancellation()
                    }
                }
            } onGracefulShutdown: {
                mailbox.finish()
            }
        } catch {
            // The client went away: nothing to finish.
            return
        }
        try await writer.finish(nil)
    }

    private func reserveSlot() throws -> ClientSlot {
        let maximum = configuration.maximumClients
        let reserved = state.withLock { state in
            guard state.clientCount < maximum else { return false }
            state.clientCount += 1
            return true
        }
        guard reserved else {
            var headers = HTTPFields()
            headers[.retryAfter] = "5"
            throw HTTPError(
                .serviceUnavailable, headers: headers,
                message: "This server streams live values to at most \(maximum) clients at once; try again later.")
        }
        registrar.withMutation(of: self, keyPath: \.clientCount) {}
        return ClientSlot { [self] in
            state.withLock { $0.clientCount -= 1 }
            registrar.withMutation(of: self, keyPath: \.clientCount) {}
        }
    }

    /// Adds a client to its key's channel, opening the channel if it is the key's first client.
    private func subscribe<Value: Encodable & Sendable>(
        _ key: SharedReaderKey<Value>, _ mailbox: Mailbox, lastEventID: String?
    ) -> (Int, LiveChannel<Value>) {
        var opened: LiveChannel<Value>?
        let (id, channel) = state.withLock { state -> (Int, LiveChannel<Value>) in
            state.nextClientID += 1
            let channel: LiveChannel<Value>
            if let existing = state.channels[key] as? LiveChannel<Value> {
                channel = existing
            } else {
                channel = LiveChannel(key: key, configuration: configuration, versions: versions)
                state.channels[key] = channel
                state.queryCount += 1
                opened = channel
            }
            channel.add(client: state.nextClientID, mailbox, lastEventID: lastEventID)
            return (state.nextClientID, channel)
        }
        if let opened {
            registrar.withMutation(of: self, keyPath: \.queryCount) {}
            opened.start { [weak self, weak opened] in
                guard let self else { return }
                self.state.withLock { state in
                    // A channel whose first load failed is still listed: later clients get a new one.
                    if let opened, state.channels[key] === opened { state.channels[key] = nil }
                    state.queryCount -= 1
                }
                self.registrar.withMutation(of: self, keyPath: \.queryCount) {}
            }
        }
        return (id, channel)
    }

    private func unsubscribe<Value>(_ key: SharedReaderKey<Value>, _ channel: LiveChannel<Value>, client id: Int) {
        let isLast = state.withLock { state in
            guard channel.remove(client: id) else { return false }
            if state.channels[key] === channel { state.channels[key] = nil }
            return true
        }
        if isLast { channel.cancel() }
    }

    // MARK: For tests

    /// The reader that serves `key`'s clients, if any.
    package func reader<Value: Encodable & Sendable>(for key: SharedReaderKey<Value>) -> SharedReader<Value>? {
        (state.withLock { $0.channels[key] } as? LiveChannel<Value>)?.reader
    }

    /// For each key with a reader open: how many clients it serves, and how many rounds fetched
    /// its query (the first load included), so that a server can show that clients share queries
    /// and how often each one runs.
    package var readerStatistics: [(clients: Int, fetches: Int)] {
        state.withLock { Array($0.channels.values) }.map(\.readerStatistics)
    }

    /// Each client's pending events and skipped values.
    package var clientStatistics: [(pending: Int, skipped: Int)] {
        state.withLock { Array($0.channels.values) }.flatMap(\.clientStatistics)
    }
}

extension LiveEventStreams: Observable {}

/// A client's place under the cap, given back once, when its stream ends, or when its response
/// is dropped unsent.
private final class ClientSlot: Sendable {
    private let onRelease: Lock<(@Sendable () -> Void)?>

    init(onRelease: @escaping @Sendable () -> Void) {
        self.onRelease = Lock(onRelease)
    }

    deinit { release() }

    func release() {
        onRelease.withLock { onRelease in
            defer { onRelease = nil }
            return onRelease
        }?()
    }
}

extension HTTPField.Name {
    static let lastEventID = Self("Last-Event-ID")!
    static let accelBuffering = Self("X-Accel-Buffering")!
}
