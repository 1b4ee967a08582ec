import Hummingbird
import Locking

/// What one client has yet to receive: at most the latest value event, then the latest error
/// event, and a heartbeat; never a queue. A client that reads slower than values change skips
/// the values it had no time for, and the server holds at most two events for it.
final class Mailbox: Sendable {
    private struct State {
        var value: ByteBuffer?
        var error: ByteBuffer?
        var heartbeat = false
        var isFinished = false
        var isCancelled = false
        var waiter: CheckedContinuation<Void, Never>?
        /// Value events replaced before the client took them.
        var skipped = 0

        var hasEvents: Bool { value != nil || error != nil || heartbeat }

        mutating func wake() -> CheckedContinuation<Void, Never>? {
            defer { waiter = nil }
            return waiter
        }
    }

    private let state = Lock(State())

    /// A new value: it replaces the value not yet taken, and makes an error not yet taken moot.
    func post(value event: ByteBuffer) {
        state.withLock { state in
            if state.value != nil { state.skipped += 1 }
            state.value = event
            state.error = nil
            return state.wake()
        }?.resume()
    }

    /// A load error: it replaces the error not yet taken, after any value not yet taken.
    func post(error event: ByteBuffer) {
        state.withLock { state in
            state.error = event
            return state.wake()
        }?.resume()
    }

    func postHeartbeat() {
        state.withLock { state in
            state.heartbeat = true
            return state.wake()
        }?.resume()
    }

    /// No more events: the client gets what is pending, then its stream ends.
    func finish() {
        state.withLock { state in
            state.isFinished = true
            return state.wake()
        }?.resume()
    }

    /// The events to send next, in order, waiting for some; `nil` once the mailbox is finished
    /// and empty, or the task is cancelled.
    func next(heartbeat: ByteBuffer) async -> [ByteBuffer]? {
        while true {
            let taken = state.withLock { state -> [ByteBuffer]?? in
                if state.isCancelled { return .some(nil) }
                var events: [ByteBuffer] = []
                if let value = state.value { events.append(value) }
                if let error = state.error { events.append(error) }
                // Any event keeps the connection alive as well as a heartbeat does.
                if events.isEmpty, state.heartbeat { events.append(heartbeat) }
                (state.value, state.error, state.heartbeat) = (nil, nil, false)
                if !events.isEmpty { return .some(events) }
                return state.isFinished ? .some(nil) : nil
            }
            if let taken { return taken }
            await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let ready = state.withLock { state in
                        if state.hasEvents || state.isFinished || state.isCancelled { return true }
                        state.waiter = continuation
                        return false
                    }
                    if ready { continuation.resume() }
                }
            } onCancel: {
                state.withLock { state in
                    state.isCancelled = true
                    return state.wake()
                }?.resume()
            }
        }
    }

    /// How many events wait, and how many values were skipped; for tests.
    var statistics: (pending: Int, skipped: Int) {
        state.withLock { state in
            ((state.value == nil ? 0 : 1) + (state.error == nil ? 0 : 1), state.skipped)
        }
    }
}
