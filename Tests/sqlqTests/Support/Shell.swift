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
}
