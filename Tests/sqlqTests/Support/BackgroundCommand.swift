import ChildProcesses
import Foundation
import Glibc

/// A `sqlq` (or other) process started by a test, whose end is awaited with a time limit so that
/// a hung child fails the test instead of hanging the suite.
final class BackgroundCommand {
    let process: ChildProcess
    private let files: TemporaryDirectory
    private let outputFile: URL
    private let errorFile: URL

    /// Starts `executable` (by default `sqlq`) with `arguments`; standard input is empty,
    /// standard output and error go to files read by ``wait(limit:)``.
    init(_ arguments: [String], executable: URL = Executable.url, environment: [String: String] = [:]) throws {
        files = try TemporaryDirectory()
        outputFile = files.file("stdout")
        errorFile = files.file("stderr")
        process = try ChildProcess(
            executable.path, arguments, environment: Executable.environment(environment),
            directory: Executable.repositoryRoot.path, output: .file(outputFile.path), error: .file(errorFile.path))
    }

    /// Kills the process with SIGKILL, as a crash or a power cut would end it.
    func kill() {
        process.signal(SIGKILL)
    }

    /// Waits for the process to end, at most `limit` seconds, and returns how it ended: a
    /// signal's number negated in ``CommandResult/status``.
    @discardableResult
    func wait(limit: Double = 60) throws -> CommandResult {
        let termination = try process.wait(timeLimit: .milliseconds(Int(limit * 1000)))
        return CommandResult(
            status: termination.status,
            output: String(decoding: try Data(contentsOf: outputFile), as: UTF8.self),
            errors: String(decoding: try Data(contentsOf: errorFile), as: UTF8.self))
    }

    /// Runs `sqlq` to completion, within `limit` seconds.
    static func run(_ arguments: [String], limit: Double = 60) throws -> CommandResult {
        try BackgroundCommand(arguments).wait(limit: limit)
    }
}
