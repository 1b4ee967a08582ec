import BenchmarkSupport
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Plain HTTP/1.1 over a socket to 127.0.0.1: nothing between the measure and the server.
enum HTTP {
    /// A connected TCP socket.
    static func connect(port: Int) throws -> Int32 {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw BenchmarkError("socket failed: \(String(cString: strerror(errno)))") }
        var noDelay: Int32 = 1
        setsockopt(socket, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            close(socket)
            throw BenchmarkError("cannot connect to port \(port): \(String(cString: strerror(errno)))")
        }
        return socket
    }

    static func send(_ socket: Int32, _ text: String) throws {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let sent = bytes.withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { throw BenchmarkError("send failed: \(String(cString: strerror(errno)))") }
            bytes = bytes.dropFirst(sent)
        }
    }

    static func request(_ path: String, accept: String? = nil) -> String {
        "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n" + (accept.map { "Accept: \($0)\r\n" } ?? "")
            + "Connection: close\r\n\r\n"
    }

    /// A GET on a new connection: the status and the body (de-chunked), and the times from the
    /// request's sending to the answer's first byte and to its end, in milliseconds.
    static func get(port: Int, _ path: String) throws -> (
        status: Int, body: [UInt8], firstByte: Double, total: Double
    ) {
        let socket = try connect(port: port)
        defer { close(socket) }
        let start = Clock.now
        try send(socket, request(path))
        var answer: [UInt8] = []
        var firstByte: Double?
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = recv(socket, &buffer, buffer.count, 0)
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw BenchmarkError("recv failed: \(String(cString: strerror(errno)))") }
            if count == 0 { break }
            if firstByte == nil { firstByte = Clock.milliseconds(since: start) }
            answer += buffer[..<count]
        }
        let total = Clock.milliseconds(since: start)
        let separator = Array("\r\n\r\n".utf8)
        guard let end = answer.firstRange(of: separator) else {
            throw BenchmarkError("no HTTP answer for \(path)")
        }
        let head = String(decoding: answer[..<end.lowerBound], as: UTF8.self)
        let statusLine = head.split(separator: "\r\n").first ?? ""
        guard let status = Int(statusLine.split(separator: " ").dropFirst().first ?? "") else {
            throw BenchmarkError("no status in \(statusLine)")
        }
        var body = Array(answer[end.upperBound...])
        if head.lowercased().contains("transfer-encoding: chunked") { body = try dechunk(body) }
        return (status, body, firstByte ?? total, total)
    }

    private static func dechunk(_ bytes: [UInt8]) throws -> [UInt8] {
        var body: [UInt8] = []
        var rest = bytes[...]
        while let lineEnd = rest.firstRange(of: Array("\r\n".utf8)) {
            let sizeText = String(decoding: rest[..<lineEnd.lowerBound], as: UTF8.self)
            guard let size = Int(sizeText.split(separator: ";").first ?? "", radix: 16) else {
                throw BenchmarkError("bad chunk size \(sizeText)")
            }
            if size == 0 { break }
            let start = lineEnd.upperBound
            guard rest.endIndex >= start + size else { throw BenchmarkError("truncated chunk") }
            body += rest[start..<start + size]
            rest = rest[(start + size + 2)...]
        }
        return body
    }

    /// A GET whose body is JSON.
    static func json(port: Int, _ path: String) throws -> Any {
        let answer = try get(port: port, path)
        guard answer.status == 200 else {
            throw BenchmarkError("\(path) answered \(answer.status): \(String(decoding: answer.body, as: UTF8.self))")
        }
        return try JSONSerialization.jsonObject(with: Data(answer.body))
    }
}

/// `pairs` as a query string, each value percent-encoded.
func queryString(_ pairs: [(String, String)]) -> String {
    pairs.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? $0.1)" }
        .joined(separator: "&")
}
