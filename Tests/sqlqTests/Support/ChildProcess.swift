import Foundation
import Glibc

struct ChildProcessError: Error, CustomStringConvertible {
    let description: String
}

/// A `sqlq` (or other) process started by a test, whose end is awaited with a time limit so that
/// a hung child fails the test instead of hanging the suite.
final class ChildProcess {
    let process = Process()
    private let ended = DispatchSemaphore(value: 0)
    private let files: TemporaryDirectory
    private let outputFile: URL
    private let errorFile: URL

    /// Starts `executable` (by default `sqlq`) with `arguments`; standard input is empty,
    /// standard output and error go to files read by ``wait(limit:)``.
    init(_ arguments: [String], executable: URL = Executable.url, environment: [String: String] = [:]) throws {
        files = try TemporaryDirectory()
        outputFile = files.file("stdout")
        errorFile = files.file("stderr")
        _ = FileManager.default.createFile(atPath: outputFile.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errorFile.path, contents: nil)
        process.executableURL = executable
        process.arguments = arguments
        process.environment = Executable.environment(environment)
        process.currentDirectoryURL = Executable.repositoryRoot
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: outputFile)
        process.standardError = try FileHandle(forWritingTo: errorFile)
        process.terminationHandler = { [ended] _ in ended.signal() }
        try process.run()
    }

    /// Kills the process with SIGKILL, as a crash or a power cut would end it.
    func kill() {
        Glibc.kill(process.processIdentifier, SIGKILL)
    }

    /// Waits for the process to end, at most `limit` seconds, and returns how it ended.
    @discardableResult
    func wait(limit: Double = 60) throws -> CommandResult {
        guard ended.wait(timeout: .now() + limit) == .success else {
            kill()
            throw ChildProcessError(description: "\(process.arguments ?? []) still runs after \(limit) s")
        }
        return CommandResult(
            status: process.terminationReason == .uncaughtSignal
                ? -process.terminationStatus : process.terminationStatus,
            output: String(decoding: try Data(contentsOf: outputFile), as: UTF8.self),
            errors: String(decoding: try Data(contentsOf: errorFile), as: UTF8.self))
    }

    /// Runs `sqlq` to completion, within `limit` seconds.
    static func run(_ arguments: [String], limit: Double = 60) throws -> CommandResult {
        try ChildProcess(arguments).wait(limit: limit)
    }
}
