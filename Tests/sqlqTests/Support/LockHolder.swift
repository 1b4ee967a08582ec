import ChildProcesses
import Glibc

/// A `sqlite3` shell in another process that holds a lock on a database until ``release()``:
/// the write lock of `BEGIN IMMEDIATE` by default, or whichever `begin` takes (`BEGIN EXCLUSIVE`;
/// a read, `BEGIN; SELECT …`, in a rollback-journal database).
final class LockHolder {
    private let process: ChildProcess

    /// Returns once the lock is held.
    init(_ path: String, begin: String = "BEGIN IMMEDIATE;") throws {
        process = try ChildProcess("/usr/bin/sqlite3", [path], input: .pipe, output: .pipe)
        try process.write("\(begin)\nSELECT 'locked';\n")
        // The shell answers the SELECT once `begin` has taken the lock; an end of output
        // means it exited without taking it.
        var answer = [UInt8](repeating: 0, count: 64)
        let count = answer.withUnsafeMutableBytes { read(process.output!, $0.baseAddress, $0.count) }
        guard count > 0 else {
            throw ChildProcessError("sqlite3 could not lock \(path)")
        }
    }

    /// Ends the shell's input, so that it rolls back and exits, and waits for it.
    func release() throws {
        process.closeInput()
        try process.wait(timeLimit: hangLimit)
    }
}
