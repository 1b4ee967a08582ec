import ChildProcesses
import Foundation
import Glibc

/// A `sqlq` process that runs while the test talks to it: its standard output is a pipe (or a
/// pseudo-terminal), read as it comes.
final class RunningCommand {
    let process: ChildProcess
    let output: StreamReader
    /// Standard error, when it is not the terminal.
    let errors: StreamReader?
    private let terminal: PseudoTerminal?

    /// Starts `sqlq`. With `terminal`, standard input, output and error are the pseudo-terminal;
    /// otherwise standard output and error are pipes, and standard input is empty.
    init(_ arguments: [String], environment: [String: String] = [:], terminal: PseudoTerminal? = nil) throws {
        self.terminal = terminal
        if let terminal {
            process = try ChildProcess(
                Executable.url.path, arguments, environment: Executable.environment(environment),
                directory: Executable.repositoryRoot.path, input: .descriptor(terminal.follower),
                output: .descriptor(terminal.follower), error: .descriptor(terminal.follower))
            output = StreamReader(descriptor: terminal.leader)
            errors = nil
            // The child has its copy; the leader then sees the end when the child exits.
            terminal.releaseFollower()
        } else {
            process = try ChildProcess(
                Executable.url.path, arguments, environment: Executable.environment(environment),
                directory: Executable.repositoryRoot.path, output: .pipe, error: .pipe)
            output = StreamReader(descriptor: process.output!)
            errors = StreamReader(descriptor: process.errors!)
        }
    }

    /// Sends Ctrl-C's signal.
    func interrupt() {
        process.signal(SIGINT)
    }

    /// Waits for the process to exit and returns its status. A process still running after
    /// `timeLimit` is killed, and the wait throws.
    func exitStatus(timeLimit: Duration = hangLimit) async throws -> Int32 {
        do {
            return try await process.termination(timeLimit: timeLimit).status
        } catch {
            throw StreamReaderError(description: "\(error); its output: \(output.text.debugDescription)")
        }
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
