import Foundation
import Glibc
import Locking
import Observation
import Testing

@testable import SharingSQLite

struct Item: FetchableRow, Equatable, Sendable {
    var id: Int64
    var title: String
    init(id: Int64, title: String) {
        self.id = id
        self.title = title
    }
    init(row: BorrowedRow) throws {
        id = try row[0]
        title = try row[1]
    }
}

struct CodableItem: Decodable, Equatable, Sendable {
    var id: Int64
    var title: String
}

struct TimedOut: Error, CustomStringConvertible {
    var description: String
}

/// An upper bound that only turns a hang into a failure; nothing waits for it to pass.
let hangLimit: Duration = .seconds(20)

/// Waits until the reader's value satisfies `predicate`, and returns it.
@discardableResult
func value<V: Sendable>(
    of reader: SharedReader<V>, where predicate: @escaping @Sendable (V) -> Bool,
    sourceLocation: SourceLocation = #_sourceLocation
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

/// The value of `task`, which is cancelled, and the wait a failure, if it takes longer than
/// `hangLimit`.
func value<T: Sendable>(of task: Task<T, Never>, waitingFor what: String) async throws -> T {
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

extension Process {
    /// Waits for the process to exit; one still running after `hangLimit` is killed, and the
    /// wait throws.
    func waitUntilExitWithinHangLimit() throws {
        let exited = DispatchSemaphore(value: 0)
        Thread.detachNewThread { [self] in
            waitUntilExit()
            exited.signal()
        }
        let (seconds, attoseconds) = hangLimit.components
        let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
        guard exited.wait(timeout: .now() + .nanoseconds(nanoseconds)) == .timedOut else { return }
        kill(processIdentifier, SIGKILL)
        exited.wait()
        throw TimedOut(description: "\(arguments ?? []) was still running after \(hangLimit), and was killed")
    }
}

/// Waits, through Observation, until `condition` (which reads the reader) holds.
func eventually<V: Sendable>(
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
final class OneShot: Sendable {
    private let state = Lock<(continuation: CheckedContinuation<Bool, Never>?, early: Bool?)>((nil, nil))

    func arm(_ continuation: CheckedContinuation<Bool, Never>) {
        let early = state.withLock { state -> Bool? in
            if let early = state.early { return early }
            state.continuation = continuation
            return nil
        }
        if let early { continuation.resume(returning: early) }
    }

    func resume(_ value: Bool) {
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

func makeItemsDatabase() throws -> DatabaseQueue {
    let db = try DatabaseQueue()
    try db.write { db in
        try db.execute("CREATE TABLE items(id INTEGER PRIMARY KEY, title TEXT NOT NULL)")
        try db.execute("CREATE TABLE other(id INTEGER PRIMARY KEY, note TEXT)")
        try db.execute("INSERT INTO items(title) VALUES ('a'), ('b')")
    }
    return db
}

func temporaryDatabasePath() -> String {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
        "SharingSQLiteTests-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return directory.appendingPathComponent("test.sqlite").path
}

func fetchCount<V>(_ reader: SharedReader<V>) -> Int {
    guard let (center, key) = reader.attachment else { return 0 }
    return center.fetchCount(for: key.id)
}
