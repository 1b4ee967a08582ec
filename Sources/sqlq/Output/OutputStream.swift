#if canImport(Glibc)
    import Glibc
#endif

/// Buffered text output to a file descriptor: standard output for data, standard error for
/// messages.
///
/// Text accumulates as UTF-8 bytes and goes out in large `write(2)` calls; nothing here goes
/// through `print`, whose conversions of `Any` cost more at start-up than the query itself.
final class OutputStream {
    let fileDescriptor: Int32
    private var buffer: [UInt8] = []

    init(fileDescriptor: Int32) {
        self.fileDescriptor = fileDescriptor
        buffer.reserveCapacity(1 << 16)
    }

    /// Whether the descriptor is a terminal.
    var isTerminal: Bool { isatty(fileDescriptor) == 1 }

    func write(_ text: String) {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= 1 << 16 { flush() }
    }

    func write(_ text: Substring) {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= 1 << 16 { flush() }
    }

    func writeLine(_ text: String = "") {
        write(text)
        buffer.append(UInt8(ascii: "\n"))
    }

    func write(bytes: some Sequence<UInt8>) {
        buffer.append(contentsOf: bytes)
        if buffer.count >= 1 << 16 { flush() }
    }

    /// Sends what is buffered. A reader that went away (a closed pipe, `| head`) ends the program
    /// quietly, as it does for other command-line tools.
    func flush() {
        var offset = 0
        while offset < buffer.count {
            let written = buffer.withUnsafeBytes { raw in
                Glibc.write(fileDescriptor, raw.baseAddress! + offset, raw.count - offset)
            }
            if written < 0 {
                if errno == EINTR { continue }
                if errno == EPIPE { exit(0) }
                break
            }
            offset += written
        }
        buffer.removeAll(keepingCapacity: true)
    }

    deinit { flush() }
}
