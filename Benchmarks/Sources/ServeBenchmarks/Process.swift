import BenchmarkSupport
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A server started with `posix_spawn`: its standard output is read for the address it prints
/// (and its standard error too, for a server that prints its address there), and it is stopped
/// with SIGTERM.
final class ServerProcess {
    let pid: pid_t
    /// The port it listens on.
    let port: Int
    let name: String
    private var stopped = false

    /// Starts `arguments` (a path, or a name looked for on PATH) and waits, at most `limit`
    /// seconds, until `port` finds the port in a line it printed; with `readErrors`, its
    /// standard error is read as well as its output, and otherwise goes where ours goes.
    init(
        _ arguments: [String], name: String, limit: Double = 60, readErrors: Bool = false,
        port portInLine: @escaping (String) -> Int?
    ) throws {
        self.name = name
        var descriptors: [Int32] = [0, 0]
        guard pipe(&descriptors) == 0 else { throw BenchmarkError("pipe failed") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, descriptors[1], 1)
        if readErrors { posix_spawn_file_actions_adddup2(&actions, descriptors[1], 2) }
        posix_spawn_file_actions_addclose(&actions, descriptors[0])
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        let argv = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let code = posix_spawnp(&pid, arguments[0], &actions, nil, argv, environ)
        close(descriptors[1])
        guard code == 0 else {
            close(descriptors[0])
            throw BenchmarkError("cannot start \(arguments[0]): \(String(cString: strerror(code)))")
        }
        self.pid = pid
        // The rest of its output is drained on a thread, so that it never blocks on a full pipe.
        let reader = descriptors[0]
        var text = ""
        var buffer = [UInt8](repeating: 0, count: 4096)
        let deadline = Clock.now + UInt64(limit * 1e9)
        var found: Int?
        while found == nil {
            var poller = pollfd(fd: reader, events: Int16(POLLIN), revents: 0)
            let left = Int32(max(0, Int64(deadline) - Int64(Clock.now)) / 1_000_000)
            guard left > 0, poll(&poller, 1, left) > 0 else {
                kill(pid, SIGKILL)
                throw BenchmarkError("\(name) printed no address within \(limit) s: \(text)")
            }
            let count = read(reader, &buffer, buffer.count)
            guard count > 0 else {
                throw BenchmarkError("\(name) ended before it printed its address: \(text)")
            }
            text += String(decoding: buffer[..<count], as: UTF8.self)
            found = text.split(separator: "\n").lazy.compactMap { portInLine(String($0)) }.first
        }
        port = found!
        Thread.detachNewThread {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while read(reader, &buffer, buffer.count) > 0 {}
            close(reader)
        }
    }

    deinit { stop() }

    /// SIGTERM, then waits for it to end.
    func stop() {
        guard !stopped else { return }
        stopped = true
        kill(pid, SIGTERM)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
    }

    /// Resident memory in bytes, from /proc/PID/status.
    func residentMemory() throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kilobytes = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        else { throw BenchmarkError("no VmRSS in /proc/\(pid)/status") }
        return kilobytes * 1024
    }

    /// CPU time used so far, user and system, in milliseconds, from /proc/PID/stat.
    func cpuMilliseconds() throws -> Double {
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        // The command name, in parentheses, may hold spaces: fields are counted after it.
        guard let close = stat.lastIndex(of: ")") else { throw BenchmarkError("cannot read /proc/\(pid)/stat") }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // Fields 14 and 15 (utime, stime) of proc(5); fields[0] here is field 3 (state).
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else {
            throw BenchmarkError("cannot read utime and stime in /proc/\(pid)/stat")
        }
        return (user + system) * 1000 / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
}

/// The value below which `fraction` of the sorted values lie (nearest rank).
func percentile(_ values: [Double], _ fraction: Double) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    let rank = Int((fraction * Double(sorted.count)).rounded(.up))
    return sorted[min(max(rank, 1), sorted.count) - 1]
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

func format(_ value: Double, digits: Int = 1) -> String {
    String(format: "%.\(digits)f", value)
}
