/// Where a ``TerminalPresenter`` writes its questions.
///
/// ``FileDescriptorWriter`` writes to a real file descriptor; tests can supply their own
/// writer to capture the text.
public protocol TerminalWriter: Sendable {
    /// Writes `text` as is; the presenter adds line endings itself.
    func write(_ text: String) throws
}
