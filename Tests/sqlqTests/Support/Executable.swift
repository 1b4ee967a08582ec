import Foundation
import Glibc
import Testing

/// How a run of the built `sqlq` ended.
struct CommandResult {
    var status: Int32
    var output: String
    var errors: String
    /// The output's bytes, which `output` shows with U+FFFD for any that are not UTF-8.
    var outputBytes: [UInt8] = []

    /// The output's lines, without the last empty one.
    var lines: [String] {
        if output.isEmpty { return [] }
        return output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).dropLast(
            output.hasSuffix("\n") ? 1 : 0)
    }
}

/// Runs the `sqlq` executable that `swift build` put next to the test bundle.
enum Executable {
    /// The products directory: where the test bundle and `sqlq` are built.
    static let productsDirectory: URL = {
        var candidates = [URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()]
        candidates += Bundle.allBundles.map { $0.bundleURL.deletingLastPathComponent() }
        candidates.append(Bundle.main.bundleURL)
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.appendingPathComponent("sqlq").path) }
            ?? candidates[0]
    }()

    static var url: URL { productsDirectory.appendingPathComponent("sqlq") }

    /// The repository's root, where `Migrations/` is.
    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The environment of a run: this process's, without the variables sqlq reads, plus `extra`.
    static func environment(_ extra: [String: String]) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["SQLQ_DATABASE"] = nil
        environment["NO_COLOR"] = nil
        environment.merge(extra) { _, new in new }
        return environment
    }

    /// Runs `sqlq` with `arguments` to completion. Standard input is `input`, or empty (and not
    /// a terminal); standard output and error are collected.
    static func run(
        _ arguments: [String], environment: [String: String] = [:], input: String? = nil,
        directory: URL = repositoryRoot
    ) throws -> CommandResult {
        let files = try TemporaryDirectory()
        let outputFile = files.file("stdout")
        let errorFile = files.file("stderr")
        _ = FileManager.default.createFile(atPath: outputFile.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errorFile.path, contents: nil)
        let process = Process()
        process.executableURL = url
        process.arguments = arguments
        process.environment = self.environment(environment)
        process.currentDirectoryURL = directory
        if let input {
            let inputFile = files.file("stdin")
            try Data(input.utf8).write(to: inputFile)
            process.standardInput = try FileHandle(forReadingFrom: inputFile)
        } else {
            process.standardInput = FileHandle.nullDevice
        }
        let output = try FileHandle(forWritingTo: outputFile)
        let errors = try FileHandle(forWritingTo: errorFile)
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        try process.waitUntilExit(timeLimit: hangLimit)
        try output.close()
        try errors.close()
        let outputBytes = [UInt8](try Data(contentsOf: outputFile))
        return CommandResult(
            status: process.terminationStatus,
            output: String(decoding: outputBytes, as: UTF8.self),
            errors: String(decoding: try Data(contentsOf: errorFile), as: UTF8.self), outputBytes: outputBytes)
    }
}

extension Process {
    /// Waits for the process to exit; one still running after `timeLimit` is killed, and the
    /// wait throws.
    func waitUntilExit(timeLimit: Duration) throws {
        let exited = DispatchSemaphore(value: 0)
        Thread.detachNewThread { [self] in
            waitUntilExit()
            exited.signal()
        }
        let (seconds, attoseconds) = timeLimit.components
        let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
        guard exited.wait(timeout: .now() + .nanoseconds(nanoseconds)) == .timedOut else { return }
        kill(processIdentifier, SIGKILL)
        exited.wait()
        throw StreamReaderError(
            description: "\(executableURL?.lastPathComponent ?? "a process") \(arguments ?? []) was still running "
                + "after \(timeLimit), and was killed")
    }
}
