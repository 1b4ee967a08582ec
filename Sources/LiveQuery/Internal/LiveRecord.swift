import Locking

/// One live query's result, as its readers see it: its value, its error, whether it is stale, how
/// many rounds fetched it, and the readers to tell of each new result.
///
/// The engine feeds it from its rounds, and `SharedReader`s subscribe to it directly. The value is
/// boxed (`any Sendable`) once per fetch, so that the record, and the path that switches a reader
/// back to it, are the same code whatever the value's type.
package final class LiveRecord: Sendable {
    /// A record's result at one moment.
    package struct Snapshot: Sendable {
        /// The last value fetched, if any; an error keeps it.
        package var value: (any Sendable)?
        /// The error of the last fetch, or `nil` after a success.
        package var error: (any Error)?
        /// How many values arrived.
        package var valueCount = 0
        /// How many results (values and errors) arrived: a reader never takes a snapshot older
        /// than one it has, when two deliveries race.
        package var version = 0
    }

    private struct State {
        var snapshot = Snapshot()
        /// Marked by a commit that may change the value, or never fetched; cleared by a value.
        var isStale = true
        /// How many rounds fetched the query.
        var fetchCount = 0
        var subscribers: [UInt64: @Sendable (Snapshot) -> Void] = [:]
        var nextSubscriberID: UInt64 = 0
    }

    /// The type of value the record holds: one query path, one type.
    package let valueType: Any.Type
    private let state = Lock(State())

    init(valueType: Any.Type) {
        self.valueType = valueType
    }

    /// The current result.
    package var snapshot: Snapshot { state.withLock { $0.snapshot } }

    /// Whether the value must be fetched before it is shown as current.
    package var isStale: Bool { state.withLock { $0.isStale } }

    /// How many rounds fetched the query.
    package var fetchCount: Int { state.withLock { $0.fetchCount } }

    /// How many readers are subscribed.
    package var subscriberCount: Int { state.withLock { $0.subscribers.count } }

    /// Calls `handler` with each new snapshot, until ``unsubscribe(_:)`` with the returned id;
    /// returns the current snapshot and staleness too, for the subscriber to take in itself, so
    /// that it may subscribe under a lock of its own. Snapshots may arrive out of order from
    /// different threads: ``Snapshot/version`` orders them.
    package func subscribe(
        _ handler: @escaping @Sendable (Snapshot) -> Void
    ) -> (id: UInt64, snapshot: Snapshot, isStale: Bool) {
        state.withLock { state in
            state.nextSubscriberID += 1
            state.subscribers[state.nextSubscriberID] = handler
            return (state.nextSubscriberID, state.snapshot, state.isStale)
        }
    }

    package func unsubscribe(_ id: UInt64) {
        _ = state.withLock { $0.subscribers.removeValue(forKey: id) }
    }

    /// Marks the value stale, to fetch when a reader uses it again.
    func markStale() {
        state.withLock { $0.isStale = true }
    }

    /// Counts a round that fetches the query.
    func countFetch() {
        state.withLock { $0.fetchCount += 1 }
    }

    /// Takes a fetch's result, and tells the subscribers, outside the lock so that they may read
    /// the record.
    func apply(_ result: Result<any Sendable, any Error>) {
        let (snapshot, subscribers) = state.withLock { state in
            switch result {
            case .success(let value):
                state.snapshot.value = value
                state.snapshot.error = nil
                state.snapshot.valueCount += 1
                state.isStale = false
            case .failure(let error):
                state.snapshot.error = error
            }
            state.snapshot.version += 1
            return (state.snapshot, state.subscribers.values)
        }
        for subscriber in subscribers { subscriber(snapshot) }
    }
}
