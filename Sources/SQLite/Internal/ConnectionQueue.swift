import Dispatch

/// A serial dispatch queue that owns one connection, and knows when it is already running on
/// itself, so that a nested `read` or `write` fails with a clear message instead of deadlocking.
final class ConnectionQueue: Sendable {
    private let queue: DispatchQueue
    private let key = DispatchSpecificKey<ObjectIdentifier>()

    init(label: String) {
        queue = DispatchQueue(label: label)
        queue.setSpecific(key: key, value: ObjectIdentifier(self))
    }

    var isCurrent: Bool { DispatchQueue.getSpecific(key: key) == ObjectIdentifier(self) }

    func sync<T>(_ body: () throws -> T) rethrows -> T {
        precondition(
            !isCurrent,
            "Database access is not reentrant: use the `db` you were given instead of calling read or write again")
        return try queue.sync(execute: body)
    }

    func async<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try Task.checkCancellation()
        return try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result(catching: body)) }
        }
    }
}
