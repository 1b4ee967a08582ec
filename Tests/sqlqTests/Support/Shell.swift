import Foundation
import Testing

/// The `sqlite3` shell, a real writer in another process.
enum Shell {
    /// Runs `sql` on the database at `path` with the `sqlite3` shell, waiting up to 5 s for locks.
    static func sqlite3(_ path: String, _ sql: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = ["-cmd", ".timeout 5000", path, sql]
        process.standardInput = FileHandle.nullDevice
        try process.run()
        try process.waitUntilExit(timeLimit: hangLimit)
        #expect(process.terminationStatus == 0, "sqlite3 failed on \(sql)")
    }

    /// What the `sqlite3` shell prints for `sql`, with `options` (such as `-csv -header`) before
    /// the database.
    static func sqlite3Output(_ path: String, _ sql: String, options: [String] = []) throws -> String {
        let process = Process()
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = options + [path, sql]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        try process.run()
        // Read before waiting: a full pipe would keep the shell from exiting.
        let data = output.fileHandleForReading.readDataToEndOfFile()
        try process.waitUntilExit(timeLimit: hangLimit)
        #expect(process.terminationStatus == 0, "sqlite3 failed on \(sql)")
        return String(decoding: data, as: UTF8.self)
    }

    /// Runs `sql` with the `sqlite3` shell as a user types it, with no busy timeout: a lock that
    /// another process holds when the shell needs it fails the statement. Returns the shell's
    /// exit status and standard error.
    static func sqlite3WithoutTimeout(_ path: String, _ sql: String) throws -> (status: Int32, errors: String) {
        let process = Process()
        let errors = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = [path, sql]
        process.standardInput = FileHandle.nullDevice
        process.standardError = errors
        try process.run()
        try process.waitUntilExit(timeLimit: hangLimit)
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return (process.terminationStatus, text)
    }
}
