import Foundation
import Glibc
import Locking

/// A `sqlq` process that runs while the test talks to it: its standard output is a pipe (or a
/// pseudo-terminal), read as it comes.
final class RunningCommand {
    let process = Process()
    let output: StreamReader
    /// Standard error, when it is not the terminal.
    let errors: StreamReader?
    private let outputPipe: Pipe?
    private let errorPipe: Pipe?
    private let terminal: PseudoTerminal?

    /// Starts `sqlq`. With `terminal`, standard input, output and error are the pseudo-terminal;
    /// otherwise standard output and error are pipes, and standard input is empty.
    init(_ arguments: [String], environment: [String: String] = [:], terminal: PseudoTerminal? = nil) throws {
        process.executableURL = Executable.url
        process.arguments = arguments
        process.environment = Executable.environment(environment)
        process.currentDirectoryURL = Executable.repositoryRoot
        self.terminal = terminal
        if let terminal {
            let handle = FileHandle(fileDescriptor: terminal.follower, closeOnDealloc: false)
            process.standardInput = handle
            process.standardOutput = handle
            process.standardError = handle
            (outputPipe, errorPipe) = (nil, nil)
            output = StreamReader(descriptor: terminal.leader)
            errors = nil
        } else {
            let (outputPipe, errorPipe) = (Pipe(), Pipe())
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = outputPipe
            process.standardError = errorPipe
            (self.outputPipe, self.errorPipe) = (outputPipe, errorPipe)
            output = StreamReader(descriptor: outputPipe.fileHandleForReading.fileDescriptor)
            errors = StreamReader(descriptor: errorPipe.fileHandleForReading.fileDescriptor)
        }
        try process.run()
        // The child has its copies; closing ours lets the reader see the end when the child exits.
        try outputPipe?.fileHandleForWriting.close()
        try errorPipe?.fileHandleForWriting.close()
        terminal?.releaseFollower()
    }

    /// Sends Ctrl-C's signal.
    func interrupt() {
        process.interrupt()
    }

    /// Waits for the process to exit and returns its status. A process still running after
    /// `timeLimit` is killed, and the wait throws.
    func exitStatus(timeLimit: Duration = hangLimit) async throws -> Int32 {
        let killed = Flag()
        let deadline = DispatchWorkItem { [process] in
            guard process.isRunning else { return }
            killed.set()
            kill(process.processIdentifier, SIGKILL)
        }
        let (seconds, attoseconds) = timeLimit.components
        DispatchQueue.global().asyncAfter(
            deadline: .now() + .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)),
            execute: deadline)
        let status = await withCheckedContinuation { continuation in
            DispatchQueue.global().async { [process] in
                process.waitUntilExit()
                continuation.resume(returning: process.terminationStatus)
            }
        }
        deadline.cancel()
        if killed.isSet {
            throw StreamReaderError(
                description:
                    "sqlq \(process.arguments ?? []) was still running after \(timeLimit), and was killed; "
                    + "its output: \(output.text.debugDescription)")
        }
        return status
    }

    deinit {
        if process.isRunning { process.terminate() }
    }
}

/// A pseudo-terminal pair: the command under test gets `follower` as its terminal, the test
/// types on `leader` and reads what the terminal shows from it.
final class PseudoTerminal {
    let leader: Int32
    let follower: Int32

    init() throws {
        var leader: Int32 = -1
        var follower: Int32 = -1
        guard openpty(&leader, &follower, nil, nil, nil) == 0 else {
            throw StreamReaderError(description: "openpty failed: \(String(cString: strerror(errno)))")
        }
        self.leader = leader
        self.follower = follower
    }

    /// Types `text` as if on the keyboard.
    func type(_ text: String) {
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { write(leader, $0.baseAddress, $0.count) }
        precondition(written == bytes.count, "writing to the pseudo-terminal failed")
    }

    private var followerIsOpen = true

    /// Closes the test's copy of the follower, once the child has its own.
    func releaseFollower() {
        guard followerIsOpen else { return }
        followerIsOpen = false
        close(follower)
    }

    deinit {
        releaseFollower()
        close(leader)
    }
}

/// Set once, read from any thread.
final class Flag: Sendable {
    private let value = Lock(false)

    var isSet: Bool { value.withLock { $0 } }

    func set() { value.withLock { $0 = true } }
}
