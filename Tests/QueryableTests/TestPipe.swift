import Glibc
import Locking

/// An anonymous pipe for feeding a reader bytes that do not come from a terminal.
final class TestPipe: Sendable {
    let readEnd: Int32
    let writeEnd: Int32
    /// Guards against closing the write end twice: tests run in parallel, and a second
    /// `close` could hit a descriptor number another test has been given meanwhile.
    private let writeEndIsOpen = Lock(true)

    init() {
        var descriptors: [Int32] = [-1, -1]
        precondition(pipe(&descriptors) == 0, "pipe() failed")
        readEnd = descriptors[0]
        writeEnd = descriptors[1]
    }

    deinit {
        close(readEnd)
        closeWriteEnd()
    }

    func write(_ text: String) {
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { Glibc.write(writeEnd, $0.baseAddress, $0.count) }
        precondition(written == bytes.count, "writing to the pipe failed")
    }

    func closeWriteEnd() {
        let shouldClose = writeEndIsOpen.withLock { isOpen in
            defer { isOpen = false }
            return isOpen
        }
        if shouldClose { _ = close(writeEnd) }
    }
}
