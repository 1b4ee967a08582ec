import ChildProcesses
import Foundation
import LiveValueTesting
import Testing

// The code of the "Getting started" article (Sources/SharingSQLite/SharingSQLite.docc/GettingStarted.md)
// is one program, built as the `GettingStartedExample` executable from
// Tests/Examples/GettingStarted/. ArticleCodeTests in SQLiteTests checks that every Swift block of
// the article appears there; this test runs it, as a reader would, twice in one folder.

/// How a run of an article's program ended.
struct ProgramRun {
    var status: Int32
    var output: String
    var errors: String
}

/// Runs an executable built beside the tests, in `directory`, to completion.
func runProgram(_ name: String, in directory: URL) throws -> ProgramRun {
    let folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    let candidates = [folder] + Bundle.allBundles.map { $0.bundleURL.deletingLastPathComponent() }
    let executable = try #require(
        candidates.map { $0.appendingPathComponent(name) }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) },
        "the \(name) executable was not built beside the tests")
    let outputFile = directory.appendingPathComponent("\(name).stdout")
    let errorFile = directory.appendingPathComponent("\(name).stderr")
    let process = try ChildProcess(
        executable.path, directory: directory.path, output: .file(outputFile.path), error: .file(errorFile.path))
    let termination = try process.wait(timeLimit: hangLimit)
    return ProgramRun(
        status: termination.status,
        output: String(decoding: try Data(contentsOf: outputFile), as: UTF8.self),
        errors: String(decoding: try Data(contentsOf: errorFile), as: UTF8.self))
}

/// A new empty folder for a program to run in.
func temporaryFolder() throws -> URL {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
        "SharingSQLiteTests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder
}

@Suite struct GettingStartedTests {
    /// The program, pasted as it is, runs; run again on the file it left, it runs again.
    @Test(.timeLimit(.minutes(1))) func theProgramRunsTwice() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }

        let first = try runProgram("GettingStartedExample", in: folder)
        #expect(first.status == 0, "\(first.errors)")
        #expect(
            first.output == """
                open: ["Buy milk"]
                open: []
                reminders in the file: 1

                """)

        let second = try runProgram("GettingStartedExample", in: folder)
        #expect(second.status == 0, "\(second.errors)")
        #expect(
            second.output == """
                open: ["Buy milk"]
                open: []
                reminders in the file: 2

                """)
    }
}
