import Locking

/// A live registration of a handler on a ``QueryStore``. Cancel it, or let it deinitialize, to
/// stop receiving states; the store counts it in ``QueryStore/subscriberCount`` until then.
///
/// ```swift
/// let subscription = store.subscribe { state in print(state.currentValue) }
/// defer { subscription.cancel() }
/// ```
public final class QuerySubscription: Sendable {
    private let onCancel: Lock<(@Sendable () -> Void)?>

    init(onCancel: @escaping @Sendable () -> Void) {
        self.onCancel = Lock(onCancel)
    }

    /// Stops delivery and unregisters. Calling it again does nothing.
    public func cancel() {
        let cancel = onCancel.withLock { handler in
            defer { handler = nil }
            return handler
        }
        cancel?()
    }

    deinit {
        cancel()
    }
}

/// Delivers states to one subscriber, in the order the store produced them.
///
/// The store enqueues while holding its lock, which fixes the order, and drains after releasing
/// it, so a handler may read or even mutate the store. A handler that mutates the store re-enters
/// `drain`, finds a drain already running and returns; the outer loop delivers the new state.
final class StateSubscriber<State: Sendable>: Sendable {
    private struct Queue {
        var pending: [State] = []
        var isDraining = false
        var isCancelled = false
    }

    private let handler: @Sendable (State) -> Void
    private let queue = Lock(Queue())

    init(handler: @escaping @Sendable (State) -> Void) {
        self.handler = handler
    }

    func enqueue(_ state: State) {
        queue.withLock { $0.pending.append(state) }
    }

    func cancel() {
        queue.withLock {
            $0.isCancelled = true
            $0.pending.removeAll()
        }
    }

    func drain() {
        let shouldDrain = queue.withLock { queue in
            guard !queue.isDraining, !queue.isCancelled, !queue.pending.isEmpty else { return false }
            queue.isDraining = true
            return true
        }
        guard shouldDrain else { return }
        while let next = queue.withLock({ queue -> State? in
            guard !queue.isCancelled, !queue.pending.isEmpty else {
                queue.isDraining = false
                return nil
            }
            return queue.pending.removeFirst()
        }) {
            handler(next)
        }
    }
}

extension QueryContext {
    /// Whether subscribing to a store with a stale value starts a fetch. Defaults to `true`.
    public var queryFetchesOnSubscribe: Bool {
        get { self[FetchOnSubscribeKey.self] }
        set { self[FetchOnSubscribeKey.self] = newValue }
    }

    private enum FetchOnSubscribeKey: Key {
        static let defaultValue = true
    }
}
