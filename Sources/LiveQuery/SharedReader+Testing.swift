import Locking

// What tests read of readers, kept out of the reader itself.

/// Counts the value changes of the reader it is given to (`SharedReader(value:probe:)`), so that a
/// test can check that a refetch with an equal result notified no one.
package final class SharedReaderProbe: Sendable {
    private let changes = Lock(0)

    package init() {}

    /// How many times the reader's value changed.
    package var valueChangeCount: Int { changes.withLock { $0 } }

    /// Called under the reader's lock, before it yields the new value to its streams, so that a
    /// test that saw the value sees the count.
    func valueDidChange() { changes.withLock { $0 += 1 } }
}

extension SharedReader {
    /// How many refetch rounds fetched the current key's query.
    package var fetchCount: Int { record?.fetchCount ?? 0 }

    /// The record of the current key's query, if the reader found one.
    var record: LiveRecord? { state.withLock { $0.record } }
}
