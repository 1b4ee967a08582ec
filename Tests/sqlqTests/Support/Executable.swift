import ChildProcesses
import Foundation
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
        environment["DATABASE_URL"] = nil
        environment["SQLQ_TOKEN"] = nil
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
        var standardInput = ChildProcess.Input.null
        if let input {
            let inputFile = files.file("stdin")
            try Data(input.utf8).write(to: inputFile)
            standardInput = .file(inputFile.path)
        }
        let process = try ChildProcess(
            url.path, arguments, environment: self.environment(environment), directory: directory.path,
            input: standardInput, output: .file(outputFile.path), error: .file(errorFile.path))
        let termination = try process.wait(timeLimit: hangLimit)
        let outputBytes = [UInt8](try Data(contentsOf: outputFile))
        return CommandResult(
            status: termination.status,
            output: String(decoding: outputBytes, as: UTF8.self),
            errors: String(decoding: try Data(contentsOf: errorFile), as: UTF8.self), outputBytes: outputBytes)
    }
}
