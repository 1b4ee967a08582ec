import Locking
import Observation

/// A value loaded from a database (SQLite, or PostgreSQL) that stays current as it changes.
///
/// ```swift
/// @SharedReader(.fetchAll("SELECT * FROM items ORDER BY id", database: db)) var items: [Item]
///
/// for await items in $items.values { render(items) }          // every new value
/// try await $items.load(.fetch(Items(filter: .open), database: db))   // another query
/// ```
///
/// A commit that touches what the query read refetches it (in coalesced rounds, after the commit
/// returns), and the reader changes only when the result differs (`==`, for `Equatable` values).
/// Readers with equal keys share one cached value and one query per change. Commits by other
/// connections and other processes are noticed too.
///
/// The reader is `Observable` (`withObservationTracking`, `Observations`) and `Sendable`; it
/// needs no main thread. A failed fetch keeps the last good value and sets ``loadError``.
@propertyWrapper
public final class SharedReader<Value: Sendable>: Sendable {
    struct State {
        var value: Value
        var isLoading = false
        var loadError: (any Error)?
        var key: SharedReaderKey<Value>?
        /// Bumped on every `load(_:)`, so that deliveries for a previous key are ignored.
        var generation: UInt64 = 0
        /// The record's counts at the last delivery, so that an older snapshot never replaces
        /// a newer one.
        var valueCount = 0
        var version = -1
        var record: LiveRecord?
        var subscription: UInt64?
        var lease: LiveLease?
        var streams: [Int: AsyncStream<Value>.Continuation] = [:]
        var nextStreamID = 0
    }

    private struct Changes {
        var value = false
        var isLoading = false
        var loadError = false
    }

    let state: Lock<State>
    private let registrar = ObservationRegistrar()
    /// The key paths Observation knows the properties by. A generic class's key paths are built
    /// at run time on every use, at a cost greater than the rest of a read, so each reader
    /// builds them once.
    private let wrappedValuePath: KeyPath<SharedReader, Value> & Sendable = \.wrappedValue
    private let isLoadingPath: KeyPath<SharedReader, Bool> & Sendable = \.isLoading
    private let loadErrorPath: KeyPath<SharedReader, (any Error)?> & Sendable = \.loadError
    private let areEqual = equality(of: Value.self)
    /// Hears of the reader's value changes; tests set it.
    private let probe: SharedReaderProbe?

    // MARK: Creating readers

    /// A reader that shows `wrappedValue` until `key` has loaded.
    ///
    /// ```swift
    /// @SharedReader(wrappedValue: 0, .fetchOne("SELECT count(*) FROM items", database: db)) var count: Int
    /// ```
    public init(wrappedValue: Value, _ key: SharedReaderKey<Value>) {
        state = Lock(State(value: wrappedValue))
        probe = nil
        guard let attached = try? attach(key), attached.isStale else { return }
        attached.lease.refresh(fresh: false) { [weak self] _ in self?.didRevalidate(attached) }
    }

    /// A reader of a collection, empty until `key` has loaded.
    ///
    /// ```swift
    /// @SharedReader(.fetchAll("SELECT * FROM items", database: db)) var items: [Item]
    /// ```
    public convenience init(_ key: SharedReaderKey<Value>) where Value: RangeReplaceableCollection {
        self.init(wrappedValue: Value(), key)
    }

    /// A reader of an optional value, `nil` until `key` has loaded (and when there is no row).
    ///
    /// ```swift
    /// @SharedReader(.fetchOne("SELECT * FROM items WHERE id = 1", database: db)) var item: Item?
    /// ```
    public convenience init<Wrapped>(_ key: SharedReaderKey<Value>) where Value == Wrapped? {
        self.init(wrappedValue: nil, key)
    }

    /// A reader with no query yet, holding `value` until ``load(_:)``.
    ///
    /// ```swift
    /// @SharedReader(value: []) var items: [Item]
    /// try await $items.load(.fetch(Items(order: .reverse), database: db))
    /// ```
    public init(value: Value) {
        state = Lock(State(value: value))
        probe = nil
    }

    /// A reader with no query yet, whose value changes `probe` hears of.
    package init(value: Value, probe: SharedReaderProbe?) {
        state = Lock(State(value: value))
        self.probe = probe
    }

    /// A reader that holds `key`'s value from the start: it waits for the value (cached, or
    /// fetched), so that no placeholder is needed, whatever the type.
    ///
    /// ```swift
    /// let summary = try await SharedReader(loading: .fetch(Summary(), database: db))
    /// ```
    ///
    /// Throws the fetch's error, or the source's error when the key names no database it can
    /// read (on SQLite, `SharingSQLiteError.noDatabase` when no default database is set).
    public convenience init(loading key: SharedReaderKey<Value>) async throws {
        let attachment = try key.attach()
        try await attachment.lease.refresh(fresh: false).get()
        let snapshot = attachment.record.snapshot
        guard let value = snapshot.value.map({ $0 as! Value }) else { throw snapshot.error ?? LiveQueryError.noKey }
        self.init(wrappedValue: value, key)
        // Held until the reader holds a lease of its own, so the engine keeps the query between.
        withExtendedLifetime(attachment) {}
    }

    deinit {
        let (streams, record, subscription) = state.withLock { ($0.streams.values, $0.record, $0.subscription) }
        if let record, let subscription { record.unsubscribe(subscription) }
        for stream in streams { stream.finish() }
    }

    // MARK: Reading

    /// The current value.
    public var wrappedValue: Value {
        registrar.access(self, keyPath: wrappedValuePath)
        return state.withLock { $0.value }
    }

    /// The reader itself: `$items.load(…)`, `$items.isLoading`, `$items.values`.
    public var projectedValue: SharedReader<Value> { self }

    /// True while ``load(_:)`` or ``load()`` waits for a fetch. Refetches after commits run in
    /// the background without setting it.
    public var isLoading: Bool {
        registrar.access(self, keyPath: isLoadingPath)
        return state.withLock { $0.isLoading }
    }

    /// The error of the last fetch, or `nil` after a success. The previous value stays while
    /// there is an error, and the reader keeps observing, so a commit that fixes things clears it.
    public var loadError: (any Error)? {
        registrar.access(self, keyPath: loadErrorPath)
        return state.withLock { $0.loadError }
    }

    /// The current value, then each new one. Slow consumers get the newest value, skipping
    /// those they missed.
    ///
    /// ```swift
    /// for await items in $items.values where items.count >= 3 { break }
    /// ```
    public var values: AsyncStream<Value> {
        let (stream, continuation) = AsyncStream.makeStream(of: Value.self, bufferingPolicy: .bufferingNewest(1))
        let id = state.withLock { state in
            let id = state.nextStreamID
            state.nextStreamID += 1
            state.streams[id] = continuation
            continuation.yield(state.value)
            return id
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0.streams.removeValue(forKey: id) }
        }
        return stream
    }

    // MARK: Loading

    /// Switches to `key`. A value cached for it shows at once, before this suspends; then, if it
    /// is stale or missing, this waits for a fresh one, with ``isLoading`` true meanwhile.
    ///
    /// ```swift
    /// try await $items.load(.fetch(Items(filterDate: date), database: db))
    /// ```
    ///
    /// Throws the fetch's error (also kept in ``loadError``), or the source's error when the key
    /// names no database it can read (on SQLite, `SharingSQLiteError.noDatabase` when no default
    /// database is set).
    public func load(_ key: SharedReaderKey<Value>) async throws {
        let attached = try attach(key)
        guard attached.isStale else { return }
        try await revalidate(attached, fresh: false)
    }

    /// Fetches the current key again, waiting for a read that starts after this call.
    public func load() async throws {
        let current = state.withLock { state in
            state.key.map { key in (key, state.lease, state.record, state.generation) }
        }
        guard let (key, lease, record, generation) = current else { throw LiveQueryError.noKey }
        guard let lease, let record else {
            // The last attempt found no database; one may have been set since.
            return try await load(key)
        }
        apply(Changes(isLoading: true)) { state in
            guard state.generation == generation else { return false }
            state.isLoading = true
            return true
        }
        try await revalidate(Attached(lease: lease, record: record, generation: generation, isStale: true), fresh: true)
    }

    // MARK: Internals

    private struct Attached: Sendable {
        let lease: LiveLease
        let record: LiveRecord
        let generation: UInt64
        let isStale: Bool
    }

    /// Points the reader at `key`'s record, synchronously, showing its cached value if any.
    private func attach(_ key: SharedReaderKey<Value>) throws -> Attached {
        let attachment: LiveAttachment
        do {
            attachment = try key.attach()
        } catch {
            var dropped: Dropped?
            apply(Changes(isLoading: true, loadError: true)) { state in
                state.generation += 1
                state.key = key
                dropped = Dropped(record: state.record, subscription: state.subscription, lease: state.lease)
                (state.subscription, state.lease, state.record) = (nil, nil, nil)
                state.isLoading = false
                state.loadError = error
                return true
            }
            dropped?.cancel()
            throw error
        }
        let (record, lease) = (attachment.record, attachment.lease)
        var dropped: Dropped?
        var changes = Changes()
        // One critical section, subscription included, so that switching back to a cached query
        // takes the reader's lock once; a result that arrives meanwhile waits for the lock.
        let (generation, isStale) = state.withLock { state -> (UInt64, Bool) in
            state.generation += 1
            let generation = state.generation
            state.key = key
            dropped = Dropped(record: state.record, subscription: state.subscription, lease: state.lease)
            let (subscription, snapshot, isStale) = record.subscribe { [weak self] snapshot in
                self?.receive(snapshot, generation: generation)
            }
            (state.subscription, state.lease, state.record) = (subscription, lease, record)
            state.valueCount = 0
            state.version = -1
            changes.isLoading = state.isLoading != isStale
            state.isLoading = isStale
            take(snapshot, into: &state, changes: &changes)
            return (generation, isStale)
        }
        dropped?.cancel()
        notify(changes)
        return Attached(lease: lease, record: record, generation: generation, isStale: isStale)
    }

    /// What the reader let go of when it switched keys: released outside its lock, since the
    /// lease's release takes the engine's.
    private struct Dropped {
        let record: LiveRecord?
        let subscription: UInt64?
        let lease: LiveLease?

        func cancel() {
            if let record, let subscription { record.unsubscribe(subscription) }
        }
    }

    /// Waits for a fetch of the attached query: one that starts after this call if `fresh`.
    private func revalidate(_ attached: Attached, fresh: Bool) async throws {
        let outcome = await attached.lease.refresh(fresh: fresh)
        // The record's subscribers may hear of the new value on another thread, after this
        // resumes; taking it here means the value is in place when `load` returns.
        receive(attached.record.snapshot, generation: attached.generation)
        didRevalidate(attached)
        try outcome.get()
    }

    private func didRevalidate(_ attached: Attached) {
        apply(Changes(isLoading: true)) { state in
            guard state.generation == attached.generation, state.isLoading else { return false }
            state.isLoading = false
            return true
        }
    }

    private func receive(_ snapshot: LiveRecord.Snapshot, generation: UInt64) {
        var changes = Changes()
        state.withLock { state in
            guard state.generation == generation else { return }
            take(snapshot, into: &state, changes: &changes)
        }
        notify(changes)
    }

    /// Takes the record's snapshot, unless the reader has a newer one.
    // Inlined into its callers' critical sections, which have the state's type metadata at hand:
    // a generic function of its own looks it up again.
    @inline(__always)
    private func take(_ snapshot: LiveRecord.Snapshot, into state: inout State, changes: inout Changes) {
        guard snapshot.version > state.version else { return }
        state.version = snapshot.version
        if snapshot.valueCount > state.valueCount, let boxed = snapshot.value {
            state.valueCount = snapshot.valueCount
            // The engine checks that a query's record holds values of its key's type.
            let value = boxed as! Value
            if !(areEqual?(state.value, value) ?? false) {
                state.value = value
                changes.value = true
                probe?.valueDidChange()
                for stream in state.streams.values { stream.yield(value) }
            }
        }
        if state.loadError != nil || snapshot.error != nil {
            state.loadError = snapshot.error
            changes.loadError = true
        }
    }

    /// Mutates the state under the lock, then tells observers about what changed, outside it so
    /// that they may read the reader. `mutate` returns whether anything changed.
    private func apply(_ changes: Changes?, _ mutate: (inout State) -> Bool) {
        let changed = state.withLock { mutate(&$0) }
        if changed, let changes { notify(changes) }
    }

    private func notify(_ changes: Changes) {
        if changes.value { registrar.withMutation(of: self, keyPath: wrappedValuePath) {} }
        if changes.isLoading { registrar.withMutation(of: self, keyPath: isLoadingPath) {} }
        if changes.loadError { registrar.withMutation(of: self, keyPath: loadErrorPath) {} }
    }
}

extension SharedReader: Observable {}

extension SharedReader: CustomStringConvertible {
    public var description: String { "SharedReader(\(wrappedValue))" }
}
