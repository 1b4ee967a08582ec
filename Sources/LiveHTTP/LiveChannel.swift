import Hummingbird
import LiveQuery
import Locking
import Observation

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What the hub holds of a channel, whatever its value type.
protocol AnyLiveChannel: AnyObject, Sendable {
    /// Removes a client; returns whether none is left.
    func remove(client id: Int) -> Bool
    /// Stops following the key: its reader is released once the channel's task ends.
    func cancel()
    /// Each client's pending events and skipped values; for tests.
    var clientStatistics: [(pending: Int, skipped: Int)] { get }
    /// How many clients the channel serves, and how many rounds fetched its key's query.
    var readerStatistics: (clients: Int, fetches: Int) { get }
}

/// One key served to its clients: one reader, whose values are encoded once and posted to every
/// client's mailbox.
final class LiveChannel<Value: Encodable & Sendable>: AnyLiveChannel {
    /// The latest value event, and the digest of its JSON.
    private struct Current {
        var digest: String
        var event: ByteBuffer
    }

    private struct State {
        var clients: [Int: Mailbox] = [:]
        /// The digests that clients which came before the first value said they have (in their
        /// `Last-Event-ID`): the first value skips a client that has it already.
        var knownDigests: [Int: Substring] = [:]
        var current: Current?
        /// The error event, while the reader holds an error.
        var failure: ByteBuffer?
        var reader: SharedReader<Value>?
        var task: Task<Void, Never>?
        var isCancelled = false
        /// Set when the first load failed: clients that come before the hub forgets the channel
        /// get this error event, and their streams end.
        var loadFailure: ByteBuffer?
    }

    private let state = Lock(State())
    private let key: SharedReaderKey<Value>
    private let configuration: LiveEventStreams.Configuration
    private let versions: EventVersions

    init(key: SharedReaderKey<Value>, configuration: LiveEventStreams.Configuration, versions: EventVersions) {
        self.key = key
        self.configuration = configuration
        self.versions = versions
    }

    /// Starts following the key; `finished` runs once the reader is released.
    func start(finished: @escaping @Sendable () -> Void) {
        let task = Task {
            await self.follow()
            finished()
        }
        state.withLock { state in
            state.task = task
            if state.isCancelled { task.cancel() }
        }
    }

    /// Adds a client, and posts it the current value unless `lastEventID` says it has it
    /// (see ``EventVersions``).
    func add(client id: Int, _ mailbox: Mailbox, lastEventID: String?) {
        state.withLock { state in
            if let loadFailure = state.loadFailure {
                mailbox.post(error: loadFailure)
                mailbox.finish()
                return
            }
            state.clients[id] = mailbox
            let known = lastEventID.flatMap(EventVersions.digest(inID:))
            if let current = state.current {
                if known != Substring(current.digest) { mailbox.post(value: current.event) }
            } else if let known {
                state.knownDigests[id] = known
            }
            if let failure = state.failure { mailbox.post(error: failure) }
        }
    }

    func remove(client id: Int) -> Bool {
        state.withLock { state in
            state.clients[id] = nil
            state.knownDigests[id] = nil
            return state.clients.isEmpty
        }
    }

    func cancel() {
        state.withLock { state in
            state.isCancelled = true
            return state.task
        }?.cancel()
    }

    var clientStatistics: [(pending: Int, skipped: Int)] {
        state.withLock { $0.clients.values.map(\.statistics) }
    }

    var readerStatistics: (clients: Int, fetches: Int) {
        state.withLock { ($0.clients.count, $0.reader?.fetchCount ?? 0) }
    }

    /// The reader, while the channel follows its key; for tests.
    var reader: SharedReader<Value>? { state.withLock { $0.reader } }

    // MARK: Following the key

    private func follow() async {
        let reader: SharedReader<Value>
        do {
            reader = try await SharedReader(loading: key)
        } catch {
            // No value to keep: every client hears why, and its stream ends (an EventSource then
            // reconnects, which tries again).
            let event = errorEvent(error)
            state.withLock { state in
                state.loadFailure = event
                for mailbox in state.clients.values {
                    mailbox.post(error: event)
                    mailbox.finish()
                }
            }
            return
        }
        state.withLock { $0.reader = reader }
        let (wakes, wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        var published = Published()
        var iterator = wakes.makeAsyncIterator()
        while !Task.isCancelled {
            // Tracking starts before the read, so that no change between two reads is missed;
            // changes while a value is encoded or sent coalesce into one wake.
            let (value, error) = withObservationTracking {
                (reader.wrappedValue, reader.loadError)
            } onChange: {
                wake.yield()
            }
            publish(value, error, &published)
            // Nil when the task is cancelled: the last client left.
            guard await iterator.next() != nil else { break }
        }
        wake.finish()
        state.withLock { $0.reader = nil }
    }

    /// What the clients were last sent.
    private struct Published {
        var json: Data?
        var errorMessage: String?
    }

    /// Sends a value event when the value's JSON changed, or when an error is over (so that a
    /// client knows its value is good again); and an error event when a new error arrived.
    private func publish(_ value: Value, _ error: (any Error)?, _ published: inout Published) {
        var error = error
        var json: Data?
        do {
            json = try configuration.encoder.encode(value)
        } catch let encodingError {
            error = error ?? encodingError
        }
        if let json, json != published.json || (error == nil && published.errorMessage != nil) {
            let (id, digest) = versions.next(for: json)
            let event = ServerSentEvent.encode(id: id, data: json)
            state.withLock { state in
                state.current = Current(digest: digest, event: event)
                state.failure = nil
                for (id, mailbox) in state.clients where state.knownDigests[id] != Substring(digest) {
                    mailbox.post(value: event)
                }
                state.knownDigests = [:]
            }
            published.json = json
            published.errorMessage = nil
        }
        if let error {
            let message = configuration.errorMessage(error)
            guard message != published.errorMessage else { return }
            let event = errorEvent(message: message)
            broadcast { state in
                state.failure = event
                return { $0.post(error: event) }
            }
            published.errorMessage = message
        }
    }

    /// Updates the state and posts to every client, under the lock, so that a client added
    /// meanwhile gets either the old state and the post, or the new state.
    private func broadcast(_ update: (inout State) -> (Mailbox) -> Void) {
        state.withLock { state in
            let post = update(&state)
            for mailbox in state.clients.values { post(mailbox) }
        }
    }

    private func errorEvent(_ error: any Error) -> ByteBuffer {
        errorEvent(message: configuration.errorMessage(error))
    }

    private func errorEvent(message: String) -> ByteBuffer {
        let json = (try? JSONEncoder().encode(["message": message])) ?? Data(#"{"message":"error"}"#.utf8)
        return ServerSentEvent.encode(event: "error", data: json)
    }
}

/// The ids of value events: a number that grows with every event of any key, then a digest of
/// the event's JSON. A client whose `Last-Event-ID` has the digest of the current value has that
/// value, even from before its key's channel was closed and opened again, or from another server
/// (with the same hashing seed); any other id is older.
final class EventVersions: Sendable {
    private let counter = Lock<UInt64>(0)

    /// The id of the next event, whose data is `json`.
    func next(for json: Data) -> (id: String, digest: String) {
        let number = counter.withLock { counter in
            counter += 1
            return counter
        }
        let digest = Self.digest(of: json)
        return ("\(number)-\(digest)", digest)
    }

    static func digest(of json: Data) -> String {
        var hasher = Hasher()
        json.withUnsafeBytes { hasher.combine(bytes: $0) }
        return String(UInt64(bitPattern: Int64(hasher.finalize())), radix: 36)
    }

    /// The digest in an event id, if it is one of ours.
    static func digest(inID id: String) -> Substring? {
        id.lastIndex(of: "-").map { id[id.index(after: $0)...] }
    }
}
