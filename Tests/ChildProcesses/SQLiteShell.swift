/// The `sqlite3` shell: a real writer in another process, and the reference of what SQLite prints.
public enum SQLiteShell {
    /// Where Debian's `sqlite3` package installs it.
    public static let path = "/usr/bin/sqlite3"

    /// Runs `sql` on the database at `database`, waiting up to 5 s for locks, with `options`
    /// (such as `-csv -header`) before the database, and returns what the shell printed.
    /// Throws, with its error output, when it fails.
    @discardableResult
    public static func run(
        _ database: String, _ sql: String, options: [String] = [], timeLimit: Duration = .seconds(120)
    ) throws -> String {
        let (termination, output, errors) = try attempt(
            ["-cmd", ".timeout 5000"] + options + [database, sql], timeLimit: timeLimit)
        guard termination == .exited(0) else {
            throw ChildProcessError("sqlite3 ended with \(termination) on \(sql): \(errors)")
        }
        return output
    }

    /// Runs `sql` as a user types it, with no busy timeout: a lock that another process holds
    /// when the shell needs it fails the statement. Returns how the shell ended, and its error
    /// output.
    public static func runWithoutTimeout(
        _ database: String, _ sql: String, timeLimit: Duration = .seconds(120)
    ) throws -> (termination: ChildProcess.Termination, errors: String) {
        let (termination, _, errors) = try attempt([database, sql], timeLimit: timeLimit)
        return (termination, errors)
    }

    private static func attempt(_ arguments: [String], timeLimit: Duration) throws -> (
        termination: ChildProcess.Termination, output: String, errors: String
    ) {
        let shell = try ChildProcess(path, arguments, output: .pipe, error: .pipe)
        // Read before waiting: a full pipe would keep the shell from exiting. Its errors are a
        // few lines, which their pipe holds meanwhile.
        let output = shell.readOutput()
        let errors = shell.readErrors()
        let termination = try shell.wait(timeLimit: timeLimit)
        return (termination, String(decoding: output, as: UTF8.self), String(decoding: errors, as: UTF8.self))
    }
}
