import Locking
import Queryable
import Testing

/// A ``TerminalLineReader`` whose input the test sends one event at a time.
final class ScriptedLineReader: TerminalLineReader {
    private struct State {
        var queued: [TerminalInputEvent] = []
        var waiter: CheckedContinuation<TerminalInputEvent, any Error>?
        var reads = 0
        var promptModeDepth = 0
        var promptModeEntries = 0
    }

    let isTerminal: Bool
    private let state = Lock(State())
    /// Signalled whenever a read starts waiting, so tests know the presenter is listening.
    private let readStarted = Lock<[Int: TestSignal]>([:])

    init(isTerminal: Bool = true, script: [TerminalInputEvent] = []) {
        self.isTerminal = isTerminal
        state.withLock { $0.queued = script }
    }

    var reads: Int { state.withLock { $0.reads } }
    var promptModeDepth: Int { state.withLock { $0.promptModeDepth } }
    var promptModeEntries: Int { state.withLock { $0.promptModeEntries } }

    func enterPromptMode() {
        state.withLock {
            $0.promptModeDepth += 1
            $0.promptModeEntries += 1
        }
    }

    func leavePromptMode() {
        state.withLock { $0.promptModeDepth -= 1 }
    }

    func send(_ event: TerminalInputEvent) {
        let waiter = state.withLock { state -> CheckedContinuation<TerminalInputEvent, any Error>? in
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            state.queued.append(event)
            return nil
        }
        waiter?.resume(returning: event)
    }

    /// Waits until the `number`-th read (counting from 1) has started.
    func waitForRead(number: Int) async {
        await signalForRead(number).wait()
    }

    private func signalForRead(_ number: Int) -> TestSignal {
        readStarted.withLock { signals in
            if let signal = signals[number] { return signal }
            let signal = TestSignal()
            signals[number] = signal
            return signal
        }
    }

    func readLine() async throws -> TerminalInputEvent {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let (number, immediate) = state.withLock {
                    state -> (Int, Swift.Result<TerminalInputEvent, any Error>?) in
                    state.reads += 1
                    if Task.isCancelled { return (state.reads, .failure(CancellationError())) }
                    if !state.queued.isEmpty { return (state.reads, .success(state.queued.removeFirst())) }
                    state.waiter = continuation
                    return (state.reads, nil)
                }
                signalForRead(number).signal()
                if let immediate { continuation.resume(with: immediate) }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(throwing: CancellationError())
        }
    }
}
