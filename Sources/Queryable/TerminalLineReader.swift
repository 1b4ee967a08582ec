/// Where a ``TerminalPresenter`` reads answers from.
///
/// ``FileDescriptorLineReader`` reads a real file descriptor; tests and embedding programs
/// can supply their own reader to script the answers.
public protocol TerminalLineReader: Sendable {
    /// Whether a person can type answers here. When `false`, the presenter only uses default
    /// answers and otherwise refuses with ``TerminalPresenterError/inputIsNotATerminal(prompt:)``.
    var isTerminal: Bool { get }

    /// Called before a question is shown, so a terminal can be prepared (for example so that
    /// Ctrl-C arrives as input instead of killing the process).
    func enterPromptMode()

    /// Called after a question is answered or abandoned; undoes ``enterPromptMode()``.
    func leavePromptMode()

    /// Suspends until the next line, the end of input, or Ctrl-C.
    /// - Throws: `CancellationError` if the calling task is cancelled while waiting,
    ///   or an error describing why reading failed.
    func readLine() async throws -> TerminalInputEvent
}

extension TerminalLineReader {
    public func enterPromptMode() {}
    public func leavePromptMode() {}
}
