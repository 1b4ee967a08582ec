import Hummingbird

/// The wire form of server-sent events (the HTML standard's `text/event-stream`).
enum ServerSentEvent {
    /// An event: `event:` when not a plain message, `id:` when given, and `data` as one `data:`
    /// line per line of it, so that a multi-line payload (pretty-printed JSON) stays one event.
    static func encode(event: String? = nil, id: String? = nil, data: some Collection<UInt8>) -> ByteBuffer {
        var buffer = ByteBufferAllocator().buffer(capacity: data.count + 64)
        if let event { buffer.writeString("event: \(event)\n") }
        if let id { buffer.writeString("id: \(id)\n") }
        var line = data[...]
        while true {
            let end = line.firstIndex { $0 == UInt8(ascii: "\n") || $0 == UInt8(ascii: "\r") }
            buffer.writeString("data: ")
            buffer.writeBytes(line[..<(end ?? line.endIndex)])
            buffer.writeString("\n")
            guard let end else { break }
            line = line[line.index(after: end)...]
        }
        buffer.writeString("\n")
        return buffer
    }

    /// A comment line, which clients ignore and proxies see as traffic.
    static let keepAlive = ByteBuffer(string: ": keep-alive\n\n")
}
