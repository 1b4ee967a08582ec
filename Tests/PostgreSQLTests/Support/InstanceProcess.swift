import ChildProcesses
import Foundation
import LiveValueTesting
import Locking
import PostgreSQLTestServer

/// A second instance of a service, in a process of its own: the `PostgreSQLInstance` executable
/// built beside the tests, holding a live value on the test's database.
final class InstanceProcess {
    private let process: ChildProcess
    /// Its output's lines, read on a thread of their own.
    private let lines: AsyncStream<String>
    /// Every line it printed, for the message of a wait that fails.
    private let printed = Lock<[String]>([])
    /// Lines read while waiting for another, that no wait has matched yet.
    private var backlog: [String] = []

    /// Starts the instance on `database`; `mode`, when given, is its first argument, and
    /// `arguments` follow the database's name.
    init(database: String, mode: String? = nil, arguments: [String] = []) throws {
        let configuration = try TestServer.configuration(database: database)
        guard case .unixSocket(let directory, let port) = configuration.address else {
            throw TestServerError("the test server listens on a unix socket")
        }
        let folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let candidates = [folder] + Bundle.allBundles.map { $0.bundleURL.deletingLastPathComponent() }
        guard
            let executable = candidates.map({ $0.appendingPathComponent("PostgreSQLInstance") })
                .first(where: { FileManager.default.isExecutableFile(atPath: $0.path) })
        else { throw TestServerError("the PostgreSQLInstance executable was not built beside the tests") }
        process = try ChildProcess(
            executable.path, (mode.map { [$0] } ?? []) + [directory, String(port), database] + arguments,
            input: .pipe, output: .pipe, error: .inherit)
        let descriptor = process.output!
        let printed = printed
        lines = AsyncStream<String> { continuation in
            Thread.detachNewThread {
                var buffer: [UInt8] = []
                var chunk = [UInt8](repeating: 0, count: 4096)
                while true {
                    let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                    if count < 0, errno == EINTR { continue }
                    guard count > 0 else { break }
                    buffer += chunk[..<count]
                    while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                        let line = String(decoding: buffer[..<newline], as: UTF8.self)
                        printed.withLock { $0.append(line) }
                        continuation.yield(line)
                        buffer.removeSubrange(...newline)
                    }
                }
                continuation.finish()
            }
        }
    }

    /// Sends one line to its standard input.
    func send(_ line: String) throws {
        try process.write(line + "\n")
    }

    /// Waits for a line equal to `expected`, in any order with the lines other waits look for:
    /// the instance's reader may print a value before its writer prints that the write committed.
    /// Fails after `hangLimit`.
    func waitFor(_ expected: String) async throws {
        if let index = backlog.firstIndex(of: expected) {
            backlog.remove(at: index)
            return
        }
        let lines = lines
        let (found, seen) = try await withThrowingTaskGroup(of: (Bool, [String]).self) { group in
            group.addTask {
                var seen: [String] = []
                for await line in lines {
                    if line == expected { return (true, seen) }
                    seen.append(line)
                }
                return (false, seen)
            }
            group.addTask {
                try await Task.sleep(for: hangLimit)
                return (false, [])
            }
            defer { group.cancelAll() }
            return try await group.next() ?? (false, [])
        }
        backlog += seen
        if !found {
            throw TimedOut(
                description: "the instance never printed \"\(expected)\"; it printed \(printed.withLock { $0 })")
        }
    }

    /// The lines it prints from now until a line equal to `last` (not included), which must come
    /// within `limit`.
    func lines(until last: String, within limit: Duration) async throws -> [String] {
        if let index = backlog.firstIndex(of: last) {
            defer { backlog.removeSubrange(...index) }
            return Array(backlog[..<index])
        }
        let lines = lines
        let (found, seen) = try await withThrowingTaskGroup(of: (Bool, [String]).self) { group in
            group.addTask {
                var seen: [String] = []
                for await line in lines {
                    if line == last { return (true, seen) }
                    seen.append(line)
                }
                return (false, seen)
            }
            group.addTask {
                try await Task.sleep(for: limit)
                return (false, [])
            }
            defer { group.cancelAll() }
            return try await group.next() ?? (false, [])
        }
        let before = backlog + seen
        backlog = []
        if !found {
            throw TimedOut(
                description: "the instance never printed \"\(last)\" within \(limit); it printed \(before.suffix(20))")
        }
        return before
    }

    /// Ends its input and waits for it to exit; returns its status.
    func finish() throws -> Int32 {
        process.closeInput()
        return try process.wait(timeLimit: hangLimit).status
    }
}
