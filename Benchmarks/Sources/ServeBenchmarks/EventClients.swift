import BenchmarkSupport
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Many server-sent-event clients on raw sockets, read by one thread through poll(2), which notes
/// for each client how many value events it has received in full and when the last one ended.
///
/// A value event is one with an `id:` line (error events and `: keep-alive` comments have none);
/// it ends at its blank line. The scan ignores the chunked encoding around the events: a chunk's
/// size line ends with a newline, so an event's `id:` still starts a line.
final class EventClients: @unchecked Sendable {
    // Safe to share: `counts`, `lastEventTimes` and `closed` are read and written only with
    // `condition` locked; `sockets` and `scans` are written only before the reading thread starts
    // (`scans` by that thread alone afterwards).
    private let condition = NSCondition()
    private var counts: [Int]
    private var lastEventTimes: [UInt64]
    private var closed = 0
    private var stopping = false
    private var sockets: [Int32] = []
    private var scans: [Scan]
    /// Signalled when the reading thread has returned.
    private let finished = DispatchSemaphore(value: 0)

    /// Where a client's scan stands.
    private struct Scan {
        /// How much of "\nid: " the last bytes matched.
        var matched = 0
        var inEvent = false
        var lastWasNewline = false

        /// Scans bytes; returns how many value events ended in them.
        mutating func scan(_ bytes: UnsafeRawBufferPointer) -> Int {
            let pattern: [UInt8] = Array("\nid: ".utf8)
            var ended = 0
            for byte in bytes {
                if byte == pattern[matched] {
                    matched += 1
                    if matched == pattern.count {
                        inEvent = true
                        matched = 0
                    }
                } else {
                    matched = byte == UInt8(ascii: "\n") ? 1 : 0
                }
                if byte == UInt8(ascii: "\n") {
                    if lastWasNewline, inEvent {
                        inEvent = false
                        ended += 1
                    }
                    lastWasNewline = true
                } else {
                    lastWasNewline = false
                }
            }
            return ended
        }
    }

    /// Connects a client to each path, each sending `GET path` with `Accept: text/event-stream`.
    init(port: Int, paths: [String]) throws {
        counts = Array(repeating: 0, count: paths.count)
        lastEventTimes = Array(repeating: 0, count: paths.count)
        scans = Array(repeating: Scan(), count: paths.count)
        for path in paths {
            let socket = try HTTP.connect(port: port)
            sockets.append(socket)
            try HTTP.send(
                socket, "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")
            _ = fcntl(socket, F_SETFL, fcntl(socket, F_GETFL) | O_NONBLOCK)
        }
        Thread.detachNewThread { [self] in
            readLoop()
            finished.signal()
        }
    }

    private func readLoop() {
        // A socket the server closed gets -1, which poll skips.
        var polled = sockets.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            condition.lock()
            let stop = stopping
            condition.unlock()
            if stop { return }
            guard poll(&polled, nfds_t(polled.count), 50) > 0 else { continue }
            var ended: [(Int, UInt64)] = []
            var hungUp = 0
            for index in polled.indices where polled[index].revents != 0 {
                while true {
                    let read = recv(sockets[index], &buffer, buffer.count, 0)
                    if read > 0 {
                        let now = Clock.now
                        let events = buffer.withUnsafeBytes {
                            scans[index].scan(UnsafeRawBufferPointer(rebasing: $0[..<read]))
                        }
                        for _ in 0..<events { ended.append((index, now)) }
                        continue
                    }
                    if read < 0, errno == EINTR { continue }
                    // The end of the stream, or an error other than "nothing to read yet".
                    if read == 0 || (errno != EAGAIN && errno != EWOULDBLOCK) {
                        polled[index].fd = -1
                        hungUp += 1
                    }
                    break
                }
            }
            if !ended.isEmpty || hungUp > 0 {
                condition.lock()
                for (index, time) in ended {
                    counts[index] += 1
                    lastEventTimes[index] = time
                }
                closed += hungUp
                condition.broadcast()
                condition.unlock()
            }
        }
    }

    /// Each client's count of value events, and when its last one ended.
    var snapshot: (counts: [Int], times: [UInt64], closed: Int) {
        condition.lock()
        defer { condition.unlock() }
        return (counts, lastEventTimes, closed)
    }

    /// Waits until `done` holds for the clients' counts, at most `limit` seconds; throws if the
    /// time runs out or a server closes a stream.
    func wait(
        limit: Double, _ what: @autoclosure () -> String, until done: ([Int]) -> Bool
    ) throws {
        let deadline = Date(timeIntervalSinceNow: limit)
        condition.lock()
        defer { condition.unlock() }
        while !done(counts) {
            guard closed == 0 else {
                throw BenchmarkError("the server closed \(closed) streams while waiting for \(what())")
            }
            guard condition.wait(until: deadline) else {
                throw BenchmarkError(
                    "waited \(limit) s for \(what()): \(counts.filter { $0 == 0 }.count) clients have no event yet")
            }
        }
    }

    /// Stops the reading thread, then closes every connection.
    func close() {
        condition.lock()
        stopping = true
        condition.unlock()
        finished.wait()
        for socket in sockets { Glibc.close(socket) }
    }
}
