import Glibc

/// Writes a ``TerminalPresenter``'s questions to a file descriptor.
///
/// ```swift
/// let presenter = TerminalPresenter(output: FileDescriptorWriter.standardOutput)
/// ```
public struct FileDescriptorWriter: TerminalWriter {
    /// Standard error, the usual place for prompts so that standard output stays clean for data.
    public static let standardError = FileDescriptorWriter(fileDescriptor: STDERR_FILENO)
    /// Standard output.
    public static let standardOutput = FileDescriptorWriter(fileDescriptor: STDOUT_FILENO)

    /// The descriptor written to. It is not closed by the writer.
    public let fileDescriptor: Int32

    /// A writer to `fileDescriptor`, which it does not close.
    public init(fileDescriptor: Int32) {
        self.fileDescriptor = fileDescriptor
    }

    public func write(_ text: String) throws {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { buffer in
                Glibc.write(fileDescriptor, buffer.baseAddress! + offset, buffer.count - offset)
            }
            if written < 0 {
                if errno == EINTR { continue }
                throw TerminalPresenterError.writeFailed(errno: errno)
            }
            offset += written
        }
    }
}
