import Foundation
import Locking
import QueryCache
import Testing

/// How long a test waits for something before it fails: an upper bound that only turns a hang
/// into a failure; nothing waits for it to pass.
let hangLimit: Duration = .seconds(120)

struct TimedOut: Error, CustomStringConvertible {
    var description: String
}

/// Runs `work` once `hangLimit` has passed, on a thread of its own.
func afterHangLimit(_ work: @escaping @Sendable () -> Void) {
    let (seconds, attoseconds) = hangLimit.components
    DispatchQueue.global().asyncAfter(
        deadline: .now() + .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)),
        execute: work)
}

/// The result of `body`, which is cancelled, and the wait a failure, if it takes longer than
/// `hangLimit`.
func withHangLimit<T: Sendable>(
    _ what: String, _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: hangLimit)
            return nil
        }
        defer { group.cancelAll() }
        guard let value = try await group.next() ?? nil else {
            throw TimedOut(description: "waited \(hangLimit) for \(what), in vain")
        }
        return value
    }
}

/// A clock that only moves when a test moves it.
final class TestClock: Sendable {
    private let date: Lock<Date>
    /// Seconds added after every reading, for tests that need each reading to differ.
    private let autoAdvance: TimeInterval

    init(_ date: Date = Date(timeIntervalSince1970: 1_000_000), autoAdvance: TimeInterval = 0) {
        self.date = Lock(date)
        self.autoAdvance = autoAdvance
    }

    var now: Date {
        date.withLock { date in
            defer { date.addTimeInterval(autoAdvance) }
            return date
        }
    }

    func advance(by seconds: TimeInterval) {
        date.withLock { $0.addTimeInterval(seconds) }
    }

    var queryClock: CustomQueryClock { .custom { self.now } }
}

/// A thread-safe counter.
final class Counter: Sendable {
    private let value = Lock(0)

    @discardableResult
    func increment() -> Int {
        value.withLock {
            $0 += 1
            return $0
        }
    }

    var count: Int { value.withLock { $0 } }
}

/// A thread-safe list that records what a test wants to inspect.
final class Recorder<Element: Sendable>: Sendable {
    private let elements = Lock<[Element]>([])

    func append(_ element: Element) {
        elements.withLock { $0.append(element) }
    }

    var values: [Element] { elements.withLock { $0 } }
}

/// A delayer that records what it was asked to wait for and returns at once.
final class RecordingDelayer: QueryDelayer {
    private let recorder = Recorder<TimeInterval>()

    func delay(for seconds: TimeInterval) async throws {
        recorder.append(seconds)
    }

    var delays: [TimeInterval] { recorder.values }
}

/// Holds async code at a point until the test opens it, and lets the test await arrivals there.
/// Waiting honours cancellation, so a held fetch can be cancelled; code held longer than
/// `hangLimit` fails with `TimedOut`, and so does a test that awaits arrivals that long.
final class Gate: Sendable {
    private struct State {
        var isOpen = false
        var arrivals = 0
        var held: [UInt64: CheckedContinuation<Void, any Error>] = [:]
        var cancelled: Set<UInt64> = []
        var nextID: UInt64 = 0
        var arrivalWaiters: [UInt64: (count: Int, continuation: CheckedContinuation<Bool, Never>)] = [:]
    }

    private let state = Lock(State())

    /// Suspends until `open()`. Throws `CancellationError` if cancelled first.
    func wait() async throws {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (ready, isHeld) = state.withLock { state in
                    state.arrivals += 1
                    let ready = state.arrivalWaiters.filter { $0.value.count <= state.arrivals }
                    for waiter in ready.keys { state.arrivalWaiters[waiter] = nil }
                    var isHeld = false
                    if state.cancelled.remove(id) != nil {
                        continuation.resume(throwing: CancellationError())
                    } else if state.isOpen {
                        continuation.resume()
                    } else {
                        state.held[id] = continuation
                        isHeld = true
                    }
                    return (ready.values, isHeld)
                }
                for waiter in ready { waiter.continuation.resume(returning: true) }
                if isHeld {
                    afterHangLimit { [self] in
                        state.withLock { $0.held.removeValue(forKey: id) }?.resume(
                            throwing: TimedOut(description: "held at a gate that was not opened within \(hangLimit)"))
                    }
                }
            }
        } onCancel: {
            state.withLock { state in
                if let continuation = state.held.removeValue(forKey: id) {
                    continuation.resume(throwing: CancellationError())
                } else {
                    state.cancelled.insert(id)
                }
            }
        }
    }

    /// Resumes everything waiting now and lets later arrivals pass.
    func open() {
        let held = state.withLock { state in
            state.isOpen = true
            defer { state.held.removeAll() }
            return Array(state.held.values)
        }
        for continuation in held { continuation.resume() }
    }

    /// Returns once `count` callers have reached `wait()` in total, or records an issue after
    /// `hangLimit`.
    func arrivals(_ count: Int, sourceLocation: SourceLocation = #_sourceLocation) async {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        let arrived = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let arrived = state.withLock { state in
                if state.arrivals >= count { return true }
                state.arrivalWaiters[id] = (count, continuation)
                return false
            }
            if arrived {
                continuation.resume(returning: true)
            } else {
                afterHangLimit { [self] in
                    state.withLock { $0.arrivalWaiters.removeValue(forKey: id) }?.continuation.resume(returning: false)
                }
            }
        }
        if !arrived {
            Issue.record(
                "waited \(hangLimit) for \(count) arrivals at the gate; \(state.withLock { $0.arrivals }) came",
                sourceLocation: sourceLocation)
        }
    }
}

/// A delayer that waits on a gate, so a test decides when a timeout fires.
final class GateDelayer: QueryDelayer {
    let gate = Gate()

    func delay(for seconds: TimeInterval) async throws {
        try await gate.wait()
    }
}

struct TestError: Error, Equatable {
    var message = "failed"
}

struct FatalTestError: NonRetryableQueryError, Equatable {}

/// Spins on `Task.yield()` until `condition` holds. It never sleeps; it only lets other tasks run.
func yieldUntil(
    _ condition: @Sendable () -> Bool,
    sourceLocation: SourceLocation = #_sourceLocation
) async {
    for _ in 0..<1_000_000 {
        if condition() { return }
        await Task.yield()
    }
    Issue.record("Condition never became true", sourceLocation: sourceLocation)
}

/// A context that neither sleeps nor reads the system clock.
func testContext(clock: TestClock = TestClock()) -> QueryContext {
    var context = QueryContext()
    context.queryClock = clock.queryClock
    context.queryDelayer = .noDelay
    return context
}

/// A configurable query for the tests that are not about a seed example.
struct TestQuery: QueryRequest {
    var path: QueryPath
    var fetchCount = Counter()
    var gate: Gate?
    var result: @Sendable (QueryContext) throws -> Int = { _ in 1 }

    init(
        _ path: QueryPath = ["test"],
        gate: Gate? = nil,
        result: @escaping @Sendable (QueryContext) throws -> Int = { _ in 1 }
    ) {
        self.path = path
        self.gate = gate
        self.result = result
    }

    func fetch(
        in context: QueryContext,
        with continuation: QueryContinuation<Int>
    ) async throws -> Int {
        fetchCount.increment()
        if let gate { try await gate.wait() }
        return try result(context)
    }
}
