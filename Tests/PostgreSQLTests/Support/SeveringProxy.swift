import Foundation
import Locking
import PostgreSQL
import PostgreSQLTestServer

/// A relay on 127.0.0.1 in front of the test server's unix socket, that can cut every connection
/// on the server's side while the clients go on believing theirs open: what a client sees when
/// the server closed its connection (a restart) and the news has not reached it yet. A client
/// learns of it only when it sends something: the relay then closes its side too.
final class SeveringProxy: Sendable {
    /// The port clients connect to.
    let port: Int
    private let listener: Int32
    private let upstream: String
    private struct Pair {
        let client: Int32
        let server: Int32
        var severed = false
    }
    private let pairs = Lock<[Pair]>([])
    /// How many severed connections a client then tried to use.
    private let usedAfterSevering = Lock(0)

    /// Relays to the test server's socket of `configuration` (a unix socket).
    init(to configuration: PostgreSQLDatabase.Configuration) throws {
        guard case .unixSocket(let directory, let serverPort) = configuration.address else {
            throw TestServerError("the proxy relays to a unix socket")
        }
        upstream = "\(directory)/.s.PGSQL.\(serverPort)"
        let listener = try TCPListener()
        self.listener = listener.descriptor
        port = listener.port
        let (pairs, upstream, used) = (pairs, upstream, usedAfterSevering)
        Thread.detachNewThread {
            while true {
                let client = accept(listener.descriptor, nil, nil)
                guard client >= 0 else {
                    if errno == EINTR { continue }
                    return
                }
                guard let server = Self.connectUnix(upstream) else {
                    close(client)
                    continue
                }
                let index = pairs.withLock { pairs in
                    pairs.append(Pair(client: client, server: server))
                    return pairs.count - 1
                }
                Thread.detachNewThread {
                    Self.relay(from: client, to: server) {
                        // The client spoke on a connection the server no longer has: it learns so now.
                        guard pairs.withLock({ $0[index].severed }) else { return false }
                        used.withLock { $0 += 1 }
                        shutdown(client, Int32(SHUT_RDWR))
                        return true
                    }
                }
                Thread.detachNewThread {
                    Self.relay(from: server, to: client) { false }
                    // The server's side ended: the client hears of it at once, unless severed on purpose.
                    if !pairs.withLock({ $0[index].severed }) { shutdown(client, Int32(SHUT_RDWR)) }
                }
            }
        }
    }

    /// Closes every connection so far on the server's side, so that each backend ends; the
    /// clients are not told.
    func sever() {
        let servers = pairs.withLock { pairs in
            for index in pairs.indices { pairs[index].severed = true }
            return pairs.map(\.server)
        }
        for server in servers { shutdown(server, Int32(SHUT_RDWR)) }
    }

    /// How many severed connections a client tried to use afterwards.
    var severedConnectionsUsed: Int { usedAfterSevering.withLock { $0 } }

    deinit {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        for pair in pairs.withLock({ $0 }) {
            shutdown(pair.client, Int32(SHUT_RDWR))
            shutdown(pair.server, Int32(SHUT_RDWR))
        }
    }

    /// Copies bytes from `source` to `destination` until either ends; `intercept`, asked before
    /// each chunk is passed on, ends the relay by returning true.
    private static func relay(from source: Int32, to destination: Int32, intercept: () -> Bool) {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(source, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0, !intercept() else { return }
            var offset = 0
            while offset < count {
                let written = buffer[offset..<count].withUnsafeBytes {
                    send(destination, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
                }
                if written < 0, errno == EINTR { continue }
                guard written > 0 else { return }
                offset += written
            }
        }
    }

    private static func connectUnix(_ path: String) -> Int32? {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            close(descriptor)
            return nil
        }
        withUnsafeMutableBytes(of: &address.sun_path) { pointer in
            pointer.copyBytes(from: bytes)
        }
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else {
            close(descriptor)
            return nil
        }
        return descriptor
    }
}
