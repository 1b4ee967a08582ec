import BenchmarkSupport
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A program started with `posix_spawn`, the cheapest way to launch one, so that the launcher
/// adds as little as possible to the times measured (the same for every contender).
struct ChildProcess {
    let pid: pid_t

    /// Starts `arguments[0]` (a path) with its standard output sent to `output` (a descriptor,
    /// or /dev/null when nil) and its standard error discarded.
    init(_ arguments: [String], output: Int32? = nil, environment: [String: String] = [:]) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let output {
            posix_spawn_file_actions_adddup2(&actions, output, 1)
        } else {
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        }
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        var variables = ProcessInfo.processInfo.environment
        variables.merge(environment) { _, new in new }
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid: pid_t = 0
        let code = posix_spawn(&pid, arguments[0], &actions, nil, argv, envp)
        guard code == 0 else {
            throw BenchmarkError("cannot start \(arguments[0]): \(String(cString: strerror(code)))")
        }
        self.pid = pid
    }

    /// Waits for the program to end and returns its peak resident memory in bytes; throws
    /// unless it exited with status 0.
    @discardableResult
    func wait() throws -> Int {
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 {
            guard errno == EINTR else { throw BenchmarkError("waitpid failed") }
        }
        let exited = status & 0x7F == 0
        guard exited, (status >> 8) & 0xFF == 0 else {
            throw BenchmarkError("\(pid) ended with status \(status)")
        }
        // Linux reports ru_maxrss in kilobytes.
        return Int(usage.ru_maxrss) * 1024
    }

    func signal(_ number: Int32) {
        kill(pid, number)
    }

    /// Runs the program to completion and returns its wall time in milliseconds.
    static func time(_ arguments: [String]) throws -> Double {
        try measure(arguments).milliseconds
    }

    /// Runs the program to completion, its output sent to `output` (or discarded), and returns
    /// its wall time in milliseconds and its peak resident memory in bytes.
    ///
    /// The memory is what `/usr/bin/time` reports, when there is one: the peak that `wait4`
    /// reports for a child started from this process includes this process's own peak, which a
    /// child spawned with vfork semantics shares until it execs.
    static func measure(_ arguments: [String], output: Int32? = nil) throws -> (milliseconds: Double, memory: Int) {
        let time = "/usr/bin/time"
        guard FileManager.default.isExecutableFile(atPath: time) else {
            let start = Clock.now
            let memory = try ChildProcess(arguments, output: output).wait()
            return (Clock.milliseconds(since: start), memory)
        }
        let report = FileManager.default.temporaryDirectory.appendingPathComponent("sqlq-benchmark-rss-\(getpid())")
            .path
        defer { try? FileManager.default.removeItem(atPath: report) }
        let start = Clock.now
        try ChildProcess([time, "-f", "%M", "-o", report] + arguments, output: output).wait()
        let milliseconds = Clock.milliseconds(since: start)
        let text = String(decoding: FileManager.default.contents(atPath: report) ?? Data(), as: UTF8.self)
        guard let kilobytes = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw BenchmarkError("\(time) reported no memory for \(arguments[0]): \(text)")
        }
        return (milliseconds, kilobytes * 1024)
    }

    /// Runs the program to completion and returns what it wrote to standard output.
    static func output(_ arguments: [String]) throws -> [UInt8] {
        var descriptors: [Int32] = [0, 0]
        guard pipe(&descriptors) == 0 else { throw BenchmarkError("pipe failed") }
        let child = try ChildProcess(arguments, output: descriptors[1])
        close(descriptors[1])
        var reader = PipeReader(descriptor: descriptors[0])
        var bytes: [UInt8] = []
        while let chunk = try reader.read() { bytes += chunk }
        close(descriptors[0])
        try child.wait()
        return bytes
    }
}

/// Reads a pipe in chunks, blocking until bytes arrive.
struct PipeReader {
    let descriptor: Int32
    private var buffer = [UInt8](repeating: 0, count: 1 << 16)

    init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// The next bytes, or nil at the end.
    mutating func read() throws -> ArraySlice<UInt8>? {
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw BenchmarkError("read failed: \(String(cString: strerror(errno)))")
            }
            return count == 0 ? nil : buffer[..<count]
        }
    }
}
