#if canImport(Glibc)
    import Glibc
#endif

/// Buffered output to a file descriptor: standard output for data, standard error for messages.
///
/// Text accumulates as UTF-8 bytes and goes out in large `write(2)` calls; nothing here goes
/// through `print`, whose conversions of `Any` cost more at start-up than the query itself.
final class OutputStream {
    let fileDescriptor: Int32
    private var buffer: ByteBuffer

    init(fileDescriptor: Int32) {
        self.fileDescriptor = fileDescriptor
        buffer = ByteBuffer(fileDescriptor: fileDescriptor)
    }

    /// Whether the descriptor is a terminal.
    var isTerminal: Bool { isatty(fileDescriptor) == 1 }

    func write(_ text: String) {
        buffer.append(text)
        buffer.flushIfFull()
    }

    func write(_ text: Substring) {
        buffer.append(String(text))
        buffer.flushIfFull()
    }

    func writeLine(_ text: String = "") {
        buffer.append(text)
        buffer.append(UInt8(ascii: "\n"))
        buffer.flushIfFull()
    }

    func write(bytes: some Sequence<UInt8>) {
        for byte in bytes { buffer.append(byte) }
        buffer.flushIfFull()
    }

    /// Gives `body` the buffer itself, for writers that format many values: one access to this
    /// class's storage for a whole result rather than one for each byte.
    func withBuffer<T>(_ body: (inout ByteBuffer) throws -> T) rethrows -> T {
        try body(&buffer)
    }

    /// Sends what is buffered. A reader that went away (a closed pipe, `| head`) ends the program
    /// quietly, as it does for other command-line tools.
    func flush() {
        buffer.flush()
    }

    deinit {
        buffer.flush()
        buffer.deallocate()
    }
}

/// The bytes waiting to be written to a file descriptor, in memory of its own that grows as
/// needed: a line being formatted is never split, so that a writer can still trim its end.
struct ByteBuffer {
    let fileDescriptor: Int32
    private(set) var start: UnsafeMutablePointer<UInt8>
    /// How many bytes are waiting.
    var count = 0
    private var capacity: Int

    /// Big enough that `write(2)` calls cost nothing beside formatting, small enough to stay in
    /// the processor's cache.
    static let flushSize = 1 << 17

    /// A buffer for `fileDescriptor`, or for bytes kept in memory (-1), starting at `capacity`.
    init(fileDescriptor: Int32, capacity: Int = 2 * flushSize) {
        self.fileDescriptor = fileDescriptor
        self.capacity = max(capacity, 16)
        start = .allocate(capacity: self.capacity)
    }

    /// Frees the memory; the owner calls this once, when it is done with the buffer.
    func deallocate() {
        start.deallocate()
    }

    /// Room for `extra` more bytes: returns where they go. Add them to `count` once written.
    @inline(__always)
    mutating func reserve(_ extra: Int) -> UnsafeMutablePointer<UInt8> {
        if count + extra > capacity { grow(count + extra) }
        return start + count
    }

    private mutating func grow(_ needed: Int) {
        var newCapacity = capacity * 2
        while newCapacity < needed { newCapacity *= 2 }
        let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        bigger.update(from: start, count: count)
        start.deallocate()
        start = bigger
        capacity = newCapacity
    }

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        reserve(1).pointee = byte
        count += 1
    }

    @inline(__always)
    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        reserve(bytes.count).update(from: base, count: bytes.count)
        count += bytes.count
    }

    mutating func append(_ text: String) {
        var text = text
        text.withUTF8 { append($0) }
    }

    /// `byte` `repeated` times.
    mutating func append(_ byte: UInt8, repeated: Int) {
        guard repeated > 0 else { return }
        reserve(repeated).update(repeating: byte, count: repeated)
        count += repeated
    }

    /// Removes the spaces at the end, back to `offset` at most.
    mutating func trimSpaces(downTo offset: Int) {
        while count > offset, start[count - 1] == UInt8(ascii: " ") { count -= 1 }
    }

    /// Writes what is buffered once there is enough of it; called between lines.
    @inline(__always)
    mutating func flushIfFull() {
        if count >= Self.flushSize { flush() }
    }

    mutating func flush() {
        var offset = 0
        while offset < count {
            let written = Glibc.write(fileDescriptor, start + offset, count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                if errno == EPIPE { exit(0) }
                break
            }
            offset += written
        }
        count = 0
    }
}
