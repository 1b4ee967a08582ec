/// One thing read from a terminal or input stream.
public enum TerminalInputEvent: Sendable, Hashable {
    /// A line, without its line ending.
    case line(String)
    /// The input ended (Ctrl-D at the start of a line, or a closed pipe or file).
    case endOfInput
    /// The person pressed Ctrl-C.
    case interrupted
}
