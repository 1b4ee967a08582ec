#if HTTP
    import AsyncHTTPClient
    import Foundation
    import Locking
    import NIOCore
    import NIOHTTP1
    import Testing

    /// A running `sqlq serve` on a port the system picks, and an HTTP client for it. Its URL is
    /// the first line it prints; every wait is bounded by `hangLimit`.
    final class RunningServer {
        let command: RunningCommand
        let base: String
        let client: HTTPClient

        /// Starts `sqlq serve --port 0` with `arguments` and waits for the URL it prints.
        init(_ arguments: [String], environment: [String: String] = [:]) async throws {
            command = try RunningCommand(["serve", "--port", "0"] + arguments, environment: environment)
            try await command.output.waitFor("/\n")
            let line = command.output.text.split(separator: "\n").first { $0.hasPrefix("Serving ") } ?? ""
            base = String(line.dropFirst("Serving ".count).dropLast())
            var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
            configuration.connectionPool = .init(
                idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 16)
            client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        }

        /// Stops the client, then the server, which must end cleanly on Ctrl-C's signal.
        fileprivate func stop() async throws {
            try? await client.shutdown()
            command.interrupt()
            let status = try await command.exitStatus()
            #expect(status == 0, "sqlq serve ended with status \(status): \(command.errors?.text ?? "")")
        }

        /// A request whose whole answer is read.
        func request(
            _ path: String, method: HTTPMethod = .GET, headers: [(String, String)] = []
        ) async throws -> Answer {
            var request = HTTPClientRequest(url: base + path)
            request.method = method
            for (name, value) in headers { request.headers.add(name: name, value: value) }
            let response = try await client.execute(request, timeout: .seconds(60))
            let body = try await response.body.collect(upTo: 1 << 24)
            return Answer(
                status: Int(response.status.code),
                headers: Dictionary(response.headers.map { ($0.name.lowercased(), $0.value) }) { first, _ in first },
                body: String(buffer: body))
        }

        /// A client of the event stream at `path`, once the answer's head has arrived.
        func events(_ path: String, headers: [(String, String)] = []) async throws -> EventStream {
            var request = HTTPClientRequest(url: base + path)
            for (name, value) in headers { request.headers.add(name: name, value: value) }
            return EventStream(try await client.execute(request, timeout: .seconds(60)))
        }
    }

    /// Runs `body` against `sqlq serve` started with `arguments`, then stops it, whether `body`
    /// returned or threw.
    func withServer<T>(
        _ arguments: [String], environment: [String: String] = [:], _ body: (RunningServer) async throws -> T
    ) async throws -> T {
        let server = try await RunningServer(arguments, environment: environment)
        let result: Result<T, any Error>
        do {
            result = .success(try await body(server))
        } catch {
            result = .failure(error)
        }
        try await server.stop()
        return try result.get()
    }

    extension Result where Failure == any Error {
        init(catching body: () async throws -> Success) async {
            do { self = .success(try await body()) } catch { self = .failure(error) }
        }
    }

    struct Answer {
        var status: Int
        /// By lowercased name.
        var headers: [String: String]
        var body: String

        /// The body as a JSON object.
        func json() throws -> [String: Any] {
            try #require(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])
        }
    }

    /// One server-sent event.
    struct ServerEvent: Sendable, Equatable {
        var type: String?
        var id: String?
        var data: String
    }

    /// The events of a `text/event-stream` answer, parsed as they arrive.
    final class EventStream: Sendable {
        private struct State {
            var events: [ServerEvent] = []
            var cursor = 0
            var finished = false
            var waiters: [CheckedContinuation<Void, Never>] = []
        }

        let status: Int
        let headers: [String: String]
        private let state = Lock(State())
        private let reading = Lock<Task<Void, Never>?>(nil)

        init(_ response: HTTPClientResponse) {
            status = Int(response.status.code)
            headers = Dictionary(response.headers.map { ($0.name.lowercased(), $0.value) }) { first, _ in first }
            let task = Task { [state] in
                var line: [UInt8] = []
                var event = ServerEvent(type: nil, id: nil, data: "")
                var dataLines: [String] = []
                do {
                    for try await buffer in response.body {
                        for byte in buffer.readableBytesView {
                            guard byte == UInt8(ascii: "\n") else {
                                line.append(byte)
                                continue
                            }
                            let text = String(decoding: line, as: UTF8.self)
                            line = []
                            if text.isEmpty {
                                if !dataLines.isEmpty || event.id != nil {
                                    event.data = dataLines.joined(separator: "\n")
                                    let finished = event
                                    Self.resume(state) { $0.events.append(finished) }
                                }
                                (event, dataLines) = (ServerEvent(type: nil, id: nil, data: ""), [])
                            } else if !text.hasPrefix(":") {
                                let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
                                var value = parts.count > 1 ? parts[1] : ""
                                if value.first == " " { value = value.dropFirst() }
                                switch parts[0] {
                                case "event": event.type = String(value)
                                case "id": event.id = String(value)
                                case "data": dataLines.append(String(value))
                                default: break
                                }
                            }
                        }
                    }
                } catch {}
                Self.resume(state) { $0.finished = true }
            }
            reading.withLock { $0 = task }
        }

        deinit { close() }

        /// Closes the connection.
        func close() { reading.withLock { $0 }?.cancel() }

        private static func resume(_ state: Lock<State>, _ change: (inout State) -> Void = { _ in }) {
            let waiters = state.withLock { state in
                change(&state)
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters { waiter.resume() }
        }

        /// The next event, waiting at most `hangLimit`; throws if the stream ends first.
        func next() async throws -> ServerEvent {
            try await withThrowingTaskGroup(of: ServerEvent.self) { group in
                group.addTask { try await self.waitForNext() }
                group.addTask {
                    try await Task.sleep(for: hangLimit)
                    throw ServeTestError("waited \(hangLimit) for an event, in vain")
                }
                defer { group.cancelAll() }
                return try await group.next()!
            }
        }

        private func waitForNext() async throws -> ServerEvent {
            while true {
                let next = state.withLock { state -> ServerEvent?? in
                    if state.cursor < state.events.count {
                        state.cursor += 1
                        return .some(state.events[state.cursor - 1])
                    }
                    return state.finished ? .some(nil) : nil
                }
                if let next {
                    guard let event = next else { throw ServeTestError("the event stream ended") }
                    return event
                }
                try Task.checkCancellation()
                await withTaskCancellationHandler {
                    await withCheckedContinuation { continuation in
                        let ready = state.withLock { state in
                            if state.cursor < state.events.count || state.finished || Task.isCancelled { return true }
                            state.waiters.append(continuation)
                            return false
                        }
                        if ready { continuation.resume() }
                    }
                } onCancel: {
                    Self.resume(state)
                }
            }
        }

        /// The next event's data as a JSON object.
        func nextJSON() async throws -> [String: Any] {
            let event = try await next()
            return try #require(try JSONSerialization.jsonObject(with: Data(event.data.utf8)) as? [String: Any])
        }
    }

    struct ServeTestError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// `text` with every byte outside printable ASCII percent-encoded: a URL's query value.
    func encoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text
    }

    /// A connection of its own to `server`, on which a test writes requests as bytes and reads
    /// what comes back; each read waits at most `hangLimit`. A client that leaves when ``close()``
    /// closes it.
    final class RawConnection {
        /// -1 once closed: closing a number twice could close a socket the test's HTTP client
        /// has since opened under it.
        private var descriptor: Int32
        private var received: [UInt8] = []

        init(_ server: RunningServer) throws {
            let port = try #require(server.base.split(separator: ":").last.flatMap { UInt16($0) })
            descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            try #require(descriptor >= 0)
            var limit = timeval(tv_sec: Int(hangLimit.components.seconds), tv_usec: 0)
            setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            if connected != 0 { close() }
            try #require(connected == 0)
        }

        deinit { close() }

        /// Sends `bytes`; the server may answer and close before it reads them all.
        func send(_ bytes: [UInt8]) {
            _ = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        }

        func send(_ text: String) { send(Array(text.utf8)) }

        /// Reads until `done` finds what it waits for in what has arrived, or the server closes
        /// the connection (nil); what `done` took is not read again.
        func receive<T>(until done: (_ received: [UInt8]) -> (T, consumed: Int)?) throws -> T? {
            var chunk = [UInt8](repeating: 0, count: 65_536)
            while true {
                if let (value, consumed) = done(received) {
                    received.removeFirst(consumed)
                    return value
                }
                let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else {
                    if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                        throw ServeTestError("waited \(hangLimit) for the server to answer, in vain")
                    }
                    return nil
                }
                received += chunk[..<count]
            }
        }

        /// The next answer, once its head and `Content-Length` bytes of body have arrived.
        func receiveAnswer() throws -> Answer {
            let answer = try receive { Self.parseAnswer($0) }
            return try #require(answer, "the server closed the connection before a whole answer: \(receivedText)")
        }

        /// Reads until `text` has arrived.
        func receive(through text: String) throws {
            let found = try receive { received -> ((), consumed: Int)? in
                String(decoding: received, as: UTF8.self).contains(text) ? ((), 0) : nil
            }
            try #require(found != nil, "the server closed the connection before \"\(text)\": \(receivedText)")
        }

        var receivedText: String { String(decoding: received, as: UTF8.self) }

        func close() {
            guard descriptor >= 0 else { return }
            _ = Glibc.close(descriptor)
            descriptor = -1
        }

        /// The first answer in `bytes`, once its head and `Content-Length` bytes of body have
        /// arrived, and how many bytes it took.
        private static func parseAnswer(_ bytes: [UInt8]) -> (Answer, consumed: Int)? {
            guard let headEnd = bytes.firstRange(of: Array("\r\n\r\n".utf8)) else { return nil }
            let head = String(decoding: bytes[..<headEnd.lowerBound], as: UTF8.self)
            let lines = head.split(separator: "\r\n")
            guard let statusLine = lines.first, let status = Int(statusLine.split(separator: " ")[1]) else {
                return nil
            }
            var headers: [String: String] = [:]
            for line in lines.dropFirst() {
                let parts = line.split(separator: ":", maxSplits: 1)
                if parts.count == 2 { headers[parts[0].lowercased()] = parts[1].trimmingCharacters(in: .whitespaces) }
            }
            let body = bytes[headEnd.upperBound...]
            guard let length = headers["content-length"].flatMap(Int.init), body.count >= length else { return nil }
            let answer = Answer(
                status: status, headers: headers, body: String(decoding: body.prefix(length), as: UTF8.self))
            return (answer, headEnd.upperBound + length)
        }
    }

    /// Sends `bytes` as they are, on a connection of its own, and reads one answer; a read waits
    /// at most `hangLimit`.
    func rawRequest(_ server: RunningServer, _ bytes: [UInt8]) throws -> Answer {
        let connection = try RawConnection(server)
        connection.send(bytes)
        return try connection.receiveAnswer()
    }
#endif
