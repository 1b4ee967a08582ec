import Dispatch
import Glibc
import Locking

/// Why a child process could not be started, or was still running when its time was up.
public struct ChildProcessError: Error, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}

/// A process a test starts: spawned with nothing of the test's but the standard descriptors
/// it is given, and awaited with a time limit.
///
/// Foundation's `Process` is not used in tests: it learns that a child ended when a socket the
/// child inherited is closed, and that socket, like its pipes, is open in the test process
/// without close-on-exec. Any process spawned meanwhile inherits it too, and when that one
/// lives on (a PostgreSQL server, a browser), the first child is never reaped and its wait
/// never ends. Here every descriptor is close-on-exec, the child closes all but 0, 1 and 2, and
/// a thread of the child's own waits for exactly its process identifier.
public final class ChildProcess: Sendable {
    /// What the child reads as its standard input.
    public enum Input: Sendable {
        /// `/dev/null`: end of input at once.
        case null
        /// A pipe the test writes with ``write(_:)`` and ends with ``closeInput()``.
        case pipe
        /// A file, opened for reading.
        case file(String)
        /// A descriptor the test holds (a pseudo-terminal); the child gets a copy.
        case descriptor(Int32)
    }

    /// Where the child's standard output or error goes.
    public enum Output: Sendable {
        /// `/dev/null`.
        case null
        /// A pipe the test reads: ``output`` or ``errors``.
        case pipe
        /// A file, created or emptied.
        case file(String)
        /// A descriptor the test holds; the child gets a copy.
        case descriptor(Int32)
        /// The test process's own.
        case inherit
        /// Wherever standard output goes: for standard error only.
        case standardOutput
    }

    /// How the child ended.
    public enum Termination: Sendable, Equatable, CustomStringConvertible {
        case exited(Int32)
        case signalled(Int32)

        /// The exit code, or the signal's number negated.
        public var status: Int32 {
            switch self {
            case .exited(let code): code
            case .signalled(let signal): -signal
            }
        }

        public var description: String {
            switch self {
            case .exited(let code): "exit code \(code)"
            case .signalled(let signal): "signal \(signal)"
            }
        }
    }

    /// The child's process identifier.
    public let pid: pid_t
    /// The executable and its arguments, for messages.
    public let command: [String]
    /// The test's end of the child's standard input, with ``Input/pipe``.
    private let inputDescriptor: Lock<Int32?>
    /// The test's end of the child's standard output, with ``Output/pipe``; closed when this
    /// object goes.
    public let output: Int32?
    /// The test's end of the child's standard error, with ``Output/pipe``.
    public let errors: Int32?
    private let ended: Lock<Termination?>
    private let exited = DispatchGroup()

    /// Starts `executable` (a path, or a name looked up in `PATH`) with `arguments`.
    ///
    /// - Parameters:
    ///   - environment: the child's whole environment; by default the test's.
    ///   - directory: the child's working directory; by default the test's.
    public init(
        _ executable: String, _ arguments: [String] = [], environment: [String: String]? = nil,
        directory: String? = nil, input: Input = .null, output: Output = .null, error: Output = .null
    ) throws {
        command = [executable] + arguments
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // The child's copies of the pipes' other ends, closed here once it has them.
        var childEnds: [Int32] = []
        var ours: [Int32] = []
        defer { for descriptor in childEnds { close(descriptor) } }
        do {
            var inputEnd: Int32? = nil
            switch input {
            case .null: posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            case .file(let path): posix_spawn_file_actions_addopen(&actions, 0, path, O_RDONLY, 0)
            case .descriptor(let descriptor): posix_spawn_file_actions_adddup2(&actions, descriptor, 0)
            case .pipe:
                let (read, write) = try Self.pipe()
                childEnds.append(read)
                ours.append(write)
                posix_spawn_file_actions_adddup2(&actions, read, 0)
                inputEnd = write
            }
            func redirect(_ output: Output, to target: Int32) throws -> Int32? {
                switch output {
                case .null: posix_spawn_file_actions_addopen(&actions, target, "/dev/null", O_WRONLY, 0)
                case .file(let path):
                    posix_spawn_file_actions_addopen(&actions, target, path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
                case .descriptor(let descriptor): posix_spawn_file_actions_adddup2(&actions, descriptor, target)
                case .inherit: break
                case .standardOutput:
                    precondition(target == 2, "only standard error can go where standard output goes")
                    posix_spawn_file_actions_adddup2(&actions, 1, 2)
                case .pipe:
                    let (read, write) = try Self.pipe()
                    childEnds.append(write)
                    ours.append(read)
                    posix_spawn_file_actions_adddup2(&actions, write, target)
                    return read
                }
                return nil
            }
            let outputEnd = try redirect(output, to: 1)
            let errorEnd = try redirect(error, to: 2)
            if let directory {
                guard Self.addChangeDirectory(&actions, directory) == 0 else {
                    throw ChildProcessError("cannot set the working directory \(directory) of \(executable)")
                }
            }
            // Belt and braces: every descriptor of this process beyond the standard three is
            // closed in the child, whoever opened it and however.
            _ = Self.addCloseFrom(&actions, 3)

            var attributes = posix_spawnattr_t()
            posix_spawnattr_init(&attributes)
            defer { posix_spawnattr_destroy(&attributes) }
            // Signals the test process ignores or blocks (SIGPIPE) are the defaults in the child.
            var all = sigset_t()
            sigfillset(&all)
            var none = sigset_t()
            sigemptyset(&none)
            posix_spawnattr_setsigdefault(&attributes, &all)
            posix_spawnattr_setsigmask(&attributes, &none)
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

            var argv: [UnsafeMutablePointer<CChar>?] = command.map { strdup($0) } + [nil]
            defer { for argument in argv { free(argument) } }
            var pid: pid_t = 0
            let spawned: Int32
            if let environment {
                var envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0)=\($1)") } + [nil]
                defer { for variable in envp { free(variable) } }
                spawned =
                    executable.contains("/")
                    ? posix_spawn(&pid, executable, &actions, &attributes, &argv, &envp)
                    : posix_spawnp(&pid, executable, &actions, &attributes, &argv, &envp)
            } else {
                spawned =
                    executable.contains("/")
                    ? posix_spawn(&pid, executable, &actions, &attributes, &argv, environ)
                    : posix_spawnp(&pid, executable, &actions, &attributes, &argv, environ)
            }
            guard spawned == 0 else {
                throw ChildProcessError("cannot start \(executable): \(String(cString: strerror(spawned)))")
            }
            self.pid = pid
            inputDescriptor = Lock(inputEnd)
            self.output = outputEnd
            errors = errorEnd
        } catch {
            for descriptor in ours { close(descriptor) }
            throw error
        }
        ended = Lock(nil)
        exited.enter()
        let (pid, ended, exited) = (self.pid, self.ended, self.exited)
        try DetachedThread.start(named: "wait \(pid)") {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) == -1, errno == EINTR {}
            // A normal exit has the code in bits 8-15 and nothing in the low 7 bits.
            let termination: Termination =
                status & 0x7f == 0 ? .exited((status >> 8) & 0xff) : .signalled(status & 0x7f)
            ended.withLock { $0 = termination }
            exited.leave()
        }
    }

    /// Whether the child has ended (and been reaped).
    public var hasEnded: Bool { ended.withLock { $0 != nil } }

    /// Sends `signal` (SIGKILL by default) to the child, unless it has ended.
    public func signal(_ signal: Int32 = SIGKILL) {
        // The identifier may be reused once the child is reaped; the lock keeps the check and
        // the signal together against the waiting thread's record of the end.
        ended.withLock { termination in
            if termination == nil { _ = kill(pid, signal) }
        }
    }

    /// Writes `text` to the child's standard input (``Input/pipe``).
    public func write(_ text: String) throws {
        try inputDescriptor.withLock { descriptor in
            guard let descriptor else { throw ChildProcessError("the input of \(command) is not an open pipe") }
            var bytes = Array(text.utf8)[...]
            while !bytes.isEmpty {
                let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
                if written < 0 {
                    if errno == EINTR { continue }
                    throw ChildProcessError("writing to \(command): \(String(cString: strerror(errno)))")
                }
                bytes = bytes.dropFirst(written)
            }
        }
    }

    /// Ends the child's standard input (``Input/pipe``).
    public func closeInput() {
        inputDescriptor.withLock { descriptor in
            if let open = descriptor { close(open) }
            descriptor = nil
        }
    }

    /// Reads the child's standard output (``Output/pipe``) to its end.
    public func readOutput() -> [UInt8] { output.map(Self.readToEnd) ?? [] }

    /// Reads the child's standard error (``Output/pipe``) to its end.
    public func readErrors() -> [UInt8] { errors.map(Self.readToEnd) ?? [] }

    /// Waits for the child to end, at most `timeLimit`. One still running then is killed, and
    /// the wait throws.
    @discardableResult
    public func wait(timeLimit: Duration) throws -> Termination {
        let (seconds, attoseconds) = timeLimit.components
        let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
        if exited.wait(timeout: .now() + .nanoseconds(nanoseconds)) == .timedOut {
            signal(SIGKILL)
            // A killed process ends at once unless it is stuck in the kernel; this bound only
            // keeps such a one from hanging the suite.
            _ = exited.wait(timeout: .now() + .seconds(10))
            throw ChildProcessError("\(command) was still running after \(timeLimit), and was killed")
        }
        return ended.withLock { $0! }
    }

    /// Waits for the child to end without holding a thread of Swift's concurrency pool, at most
    /// `timeLimit`; as ``wait(timeLimit:)``.
    @discardableResult
    public func termination(timeLimit: Duration) async throws -> Termination {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try self.wait(timeLimit: timeLimit) })
            }
        }
    }

    deinit {
        signal(SIGKILL)
        closeInput()
        if let output { close(output) }
        if let errors { close(errors) }
    }

    private static func pipe() throws -> (read: Int32, write: Int32) {
        var ends: [Int32] = [-1, -1]
        guard Glibc.pipe(&ends) == 0 else {
            throw ChildProcessError("cannot create a pipe: \(String(cString: strerror(errno)))")
        }
        // `pipe2`, which sets this at once, is declared only for _GNU_SOURCE; the moment between
        // does not matter, since every spawn here closes what it was not given.
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        return (ends[0], ends[1])
    }

    private static func readToEnd(_ descriptor: Int32) -> [UInt8] {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            if count <= 0 { return bytes }
            bytes += buffer[..<count]
        }
    }

    // glibc has both since 2.29 and 2.34, but declares them only for _GNU_SOURCE, which Swift's
    // Glibc module does not define; they are found by name instead.
    private typealias AddChangeDirectory =
        @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32
    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32

    private static func addChangeDirectory(_ actions: inout posix_spawn_file_actions_t, _ path: String) -> Int32 {
        guard let symbol = dlsym(nil, "posix_spawn_file_actions_addchdir_np") else { return ENOSYS }
        return unsafeBitCast(symbol, to: AddChangeDirectory.self)(&actions, path)
    }

    private static func addCloseFrom(_ actions: inout posix_spawn_file_actions_t, _ lowest: Int32) -> Int32 {
        guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else { return ENOSYS }
        return unsafeBitCast(symbol, to: AddCloseFrom.self)(&actions, lowest)
    }
}
