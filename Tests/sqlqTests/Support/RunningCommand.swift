import Foundation
import Glibc

/// A `sqlq` process that runs while the test talks to it: its standard output is a pipe (or a
/// pseudo-terminal), read as it comes.
final class RunningCommand {
    let process = Process()
    let output: StreamReader
    private let outputPipe: Pipe?
    private let terminal: PseudoTerminal?

    /// Starts `sqlq`. With `terminal`, standard input, output and error are the pseudo-terminal;
    /// otherwise standard output is a pipe, standard input empty, standard error discarded.
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
            outputPipe = nil
            output = StreamReader(descriptor: terminal.leader)
        } else {
            let pipe = Pipe()
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = pipe
            process.standardError = FileHandle.nullDevice
            outputPipe = pipe
            output = StreamReader(descriptor: pipe.fileHandleForReading.fileDescriptor)
        }
        try process.run()
        // The child has its copies; closing ours lets the reader see the end when the child exits.
        try outputPipe?.fileHandleForWriting.close()
        terminal?.releaseFollower()
    }

    /// Sends Ctrl-C's signal.
    func interrupt() {
        process.interrupt()
    }

    /// Waits for the process to exit and returns its status.
    func exitStatus() async -> Int32 {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { [process] in
                process.waitUntilExit()
                continuation.resume(returning: process.terminationStatus)
            }
        }
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
