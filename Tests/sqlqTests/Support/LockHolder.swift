import Foundation

/// A `sqlite3` shell in another process that holds a lock on a database until ``release()``:
/// the write lock of `BEGIN IMMEDIATE` by default, or whichever `begin` takes (`BEGIN EXCLUSIVE`;
/// a read, `BEGIN; SELECT …`, in a rollback-journal database).
final class LockHolder {
    private let process = Process()
    private let input = Pipe()

    /// Returns once the lock is held.
    init(_ path: String, begin: String = "BEGIN IMMEDIATE;") throws {
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = [path]
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(Data("\(begin)\nSELECT 'locked';\n".utf8))
        // The shell answers the SELECT once `begin` has taken the lock; an empty read
        // means it exited without taking it.
        guard !output.fileHandleForReading.availableData.isEmpty else {
            throw ChildProcessError(description: "sqlite3 could not lock \(path)")
        }
    }

    /// Ends the shell's input, so that it rolls back and exits, and waits for it.
    func release() throws {
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
    }

    deinit {
        if process.isRunning { process.terminate() }
    }
}
