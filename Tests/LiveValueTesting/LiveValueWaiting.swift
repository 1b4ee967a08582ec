import Foundation
import LiveQuery
import Locking
import Observation

// Waiting for live values in tests, whatever their source: through the reader's own values and
// Observation, never a fixed sleep, and never longer than `hangLimit`.

public struct TimedOut: Error, CustomStringConvertible {
    public var description: String

    public init(description: String) { self.description = description }
}

/// An upper bound that only turns a hang into a failure; nothing waits for it to pass.
public let hangLimit: Duration = .seconds(20)

/// Waits until the reader's value satisfies `predicate`, and returns it.
@discardableResult
public func value<V: Sendable>(
    of reader: SharedReader<V>, where predicate: @escaping @Sendable (V) -> Bool
) async throws -> V {
    try await withThrowingTaskGroup(of: V?.self) { group in
        group.addTask {
            for await value in reader.values where predicate(value) { return value }
            return nil
        }
        group.addTask {
            try await Task.sleep(for: hangLimit)
            return nil
        }
        defer { group.cancelAll() }
        guard let value = try await group.next() ?? nil else {
            throw TimedOut(description: "the reader never got the expected value; it holds \(reader.wrappedValue)")
        }
        return value
    }
}

/// Waits, through Observation, until `condition` (which reads the reader) holds.
public func eventually<V: Sendable>(
    _ reader: SharedReader<V>, _ condition: @escaping @Sendable (SharedReader<V>) -> Bool
) async throws {
    try await withThrowingTaskGroup(of: Bool.self) { group in
        group.addTask {
            while !Task.isCancelled {
                let once = OneShot()
                let satisfied = await withTaskCancellationHandler {
                    await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                        once.arm(continuation)
                        let done = withObservationTracking {
                            condition(reader)
                        } onChange: {
                            once.resume(false)
                        }
                        // Tracking starts when the closure returns: a change between its read and
                        // then reaches no onChange, so the condition is checked once more.
                        if done || condition(reader) { once.resume(true) }
                    }
                } onCancel: {
                    once.resume(false)
                }
                if satisfied { return true }
            }
            return false
        }
        group.addTask {
            try await Task.sleep(for: hangLimit)
            return false
        }
        defer { group.cancelAll() }
        guard try await group.next() == true else { throw TimedOut(description: "condition never held") }
    }
}

/// Resumes a continuation once, whoever comes first: the condition, a change, or cancellation.
package final class OneShot: Sendable {
    private let state = Lock<(continuation: CheckedContinuation<Bool, Never>?, early: Bool?)>((nil, nil))

    /// A new one, neither armed nor resumed.
    package init() {}

    package func arm(_ continuation: CheckedContinuation<Bool, Never>) {
        let early = state.withLock { state -> Bool? in
            if let early = state.early { return early }
            state.continuation = continuation
            return nil
        }
        if let early { continuation.resume(returning: early) }
    }

    package func resume(_ value: Bool) {
        let continuation = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            guard let continuation = state.continuation else {
                if state.early == nil { state.early = value }
                return nil
            }
            state.continuation = nil
            state.early = value  // later calls find no continuation and an answer already given
            return continuation
        }
        continuation?.resume(returning: value)
    }
}

/// The value of `task`, which is cancelled, and the wait a failure, if it takes longer than
/// `hangLimit`.
public func value<T: Sendable>(of task: Task<T, Never>, waitingFor what: String) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { await task.value }
        group.addTask {
            try await Task.sleep(for: hangLimit)
            task.cancel()
            return nil
        }
        defer { group.cancelAll() }
        guard let value = try await group.next() ?? nil else {
            throw TimedOut(description: "waited \(hangLimit) for \(what), in vain")
        }
        return value
    }
}

/// A new database file's path, in a folder of its own under the temporary directory.
public func temporaryDatabasePath() -> String {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("LiveValueTests-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return directory.appendingPathComponent("test.sqlite").path
}
