import Glibc
import Locking

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Reads answers line by line from a file descriptor, such as standard input or a pseudo-terminal.
///
/// The blocking `read` runs on a dedicated thread, never on Swift's cooperative thread pool,
/// and a cancelled task stops waiting at once. On a terminal, ``enterPromptMode()`` makes
/// Ctrl-C end the line instead of sending `SIGINT`, so a prompt can be interrupted cleanly
/// and reported as ``TerminalInputEvent/interrupted``; the byte `0x03` in any input means the same.
///
/// Use one reader per descriptor and read from one task at a time: two concurrent reads of
/// the same descriptor would split the typed bytes between them.
///
/// ```swift
/// let presenter = TerminalPresenter(input: FileDescriptorLineReader(fileDescriptor: ttyDescriptor))
/// ```
public final class FileDescriptorLineReader: TerminalLineReader {
    /// Standard input. Shared, so that bytes read ahead are not lost between presenters.
    public static let standardInput = FileDescriptorLineReader(fileDescriptor: STDIN_FILENO)

    private static let newline: UInt8 = 0x0A
    private static let carriageReturn: UInt8 = 0x0D
    private static let endOfText: UInt8 = 0x03  // What Ctrl-C produces once `ISIG` is off.

    private struct State {
        /// Bytes read past the end of the last returned line.
        var buffered: [UInt8] = []
        var savedTerminalSettings: termios?
        var promptModeDepth = 0
    }

    /// The descriptor read from. It is not closed by the reader.
    public let fileDescriptor: Int32
    private let state = Lock(State())

    /// A reader of `fileDescriptor`, which it does not close.
    public init(fileDescriptor: Int32) {
        self.fileDescriptor = fileDescriptor
    }

    public var isTerminal: Bool {
        isatty(fileDescriptor) == 1
    }

    /// On a terminal: turns off signal keys and makes Ctrl-C an extra line terminator, so a
    /// pending `read` returns the moment Ctrl-C is pressed. Ctrl-Z and Ctrl-\ are ordinary keys
    /// until ``leavePromptMode()``. Does nothing if the settings cannot be read or changed.
    public func enterPromptMode() {
        state.withLock { state in
            state.promptModeDepth += 1
            guard state.promptModeDepth == 1, isatty(fileDescriptor) == 1 else { return }
            var original = termios()
            guard tcgetattr(fileDescriptor, &original) == 0 else { return }
            var prompting = original
            prompting.c_lflag &= ~tcflag_t(ISIG)
            withUnsafeMutableBytes(of: &prompting.c_cc) { controlCharacters in
                controlCharacters[Int(VEOL)] = Self.endOfText
            }
            guard tcsetattr(fileDescriptor, TCSANOW, &prompting) == 0 else { return }
            state.savedTerminalSettings = original
        }
    }

    public func leavePromptMode() {
        state.withLock { state in
            guard state.promptModeDepth > 0 else { return }
            state.promptModeDepth -= 1
            guard state.promptModeDepth == 0, var original = state.savedTerminalSettings else { return }
            state.savedTerminalSettings = nil
            _ = tcsetattr(fileDescriptor, TCSANOW, &original)
        }
    }

    public func readLine() async throws -> TerminalInputEvent {
        while true {
            if let event = takeBufferedEvent(atEndOfInput: false) {
                return event
            }
            let chunk = try await readChunk()
            if chunk.isEmpty {
                return takeBufferedEvent(atEndOfInput: true) ?? .endOfInput
            }
            state.withLock { $0.buffered.append(contentsOf: chunk) }
        }
    }

    private func takeBufferedEvent(atEndOfInput: Bool) -> TerminalInputEvent? {
        state.withLock { state -> TerminalInputEvent? in
            if let end = state.buffered.firstIndex(where: { $0 == Self.newline || $0 == Self.endOfText }) {
                let terminator = state.buffered[end]
                var line = Array(state.buffered[..<end])
                state.buffered.removeSubrange(...end)
                if terminator == Self.endOfText { return .interrupted }
                if line.last == Self.carriageReturn { line.removeLast() }
                return .line(String(decoding: line, as: UTF8.self))
            }
            // An unterminated last line still counts as an answer.
            guard atEndOfInput, !state.buffered.isEmpty else { return nil }
            let line = state.buffered
            state.buffered = []
            return .line(String(decoding: line, as: UTF8.self))
        }
    }

    /// Reads whatever is available; an empty array means end of input.
    private func readChunk() async throws -> [UInt8] {
        let wakeUp = try WakeUpPipe()
        let descriptor = fileDescriptor
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<[UInt8], any Error>) in
                do throws(DetachedThread.StartError) {
                    try DetachedThread.start(named: "Queryable terminal reader") {
                        let result = Self.blockingRead(from: descriptor, wakeUpDescriptor: wakeUp.readEnd)
                        wakeUp.close()
                        continuation.resume(with: result)
                    }
                } catch {
                    wakeUp.close()
                    continuation.resume(throwing: TerminalPresenterError.readFailed(errno: error.code))
                }
            }
        } onCancel: {
            wakeUp.wake()
        }
    }

    private static func blockingRead(
        from descriptor: Int32,
        wakeUpDescriptor: Int32
    ) -> Swift.Result<[UInt8], any Error> {
        var descriptors = [
            pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0),
            pollfd(fd: wakeUpDescriptor, events: Int16(POLLIN), revents: 0),
        ]
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            descriptors[0].revents = 0
            descriptors[1].revents = 0
            if poll(&descriptors, nfds_t(descriptors.count), -1) < 0 {
                if errno == EINTR { continue }
                return .failure(TerminalPresenterError.readFailed(errno: errno))
            }
            if descriptors[1].revents != 0 {
                return .failure(CancellationError())
            }
            guard descriptors[0].revents != 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { bytes in
                Glibc.read(descriptor, bytes.baseAddress, bytes.count)
            }
            if count >= 0 {
                return .success(Array(buffer[..<count]))
            }
            switch errno {
            case EINTR, EAGAIN:
                continue
            case EIO:
                // A pseudo-terminal whose other side is gone reports EIO; that is the end of input.
                return .success([])
            default:
                return .failure(TerminalPresenterError.readFailed(errno: errno))
            }
        }
    }
}
