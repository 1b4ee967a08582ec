import Glibc

/// Errors from the terminal presenter and its file descriptor reader and writer.
public enum TerminalPresenterError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A question without a default answer was asked while the input is not a terminal.
    case inputIsNotATerminal(prompt: String)
    /// Reading the input failed with the given `errno`.
    case readFailed(errno: Int32)
    /// Writing the output failed with the given `errno`.
    case writeFailed(errno: Int32)
    /// The pipe that lets a waiting read be cancelled could not be created (`errno`).
    case cannotCreateWakeUpPipe(errno: Int32)

    public var description: String {
        switch self {
        case .inputIsNotATerminal(let prompt):
            "Cannot ask \"\(prompt)\": standard input is not a terminal. "
                + "Run the command interactively, or give a default answer (for example with --yes)."
        case .readFailed(let code):
            "Reading the answer failed: \(Self.message(for: code)). Check that the input is still open and readable."
        case .writeFailed(let code):
            "Writing the question failed: \(Self.message(for: code)). Check that the output is still open and writable."
        case .cannotCreateWakeUpPipe(let code):
            "Cannot prepare to read the answer: \(Self.message(for: code)). The process may have run out of file descriptors."
        }
    }

    private static func message(for code: Int32) -> String {
        "\(String(cString: strerror(code))) (errno \(code))"
    }
}
