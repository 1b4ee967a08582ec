import ArgumentParser
import SQLite

#if canImport(Glibc)
    import Glibc
#endif

/// `--db PATH` and `--timeout SECONDS`, shared by every command.
struct DatabaseOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "The SQLite database file, or a postgresql:// URL (tables, schema, query, watch, delete, import, install-notifications and uninstall-notifications). Defaults to $SQLQ_DATABASE, then to $DATABASE_URL when it is a PostgreSQL URL, then to the demo database, built in memory from Migrations/.",
            valueName: "path"),
        completion: .file())
    var db: String?

    /// A minute: long enough for another sqlq import or migration of a few million rows to
    /// finish, short enough that a script stuck behind a process that never lets go fails
    /// within a minute, with advice, rather than hanging.
    static let defaultTimeout = 60.0

    // Unconditional, so that `--timeout -1` reaches validate() and its message, rather than
    // reading -1 as an option.
    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "How long to wait for another process that holds a lock on the database (reading or writing), in seconds; on PostgreSQL, each session's lock_timeout.",
            valueName: "seconds"))
    var timeout: Double = Self.defaultTimeout

    /// SQLite takes the timeout in milliseconds, as a 32-bit integer: about 24 days.
    static let maximumTimeout = Double(Int32.max / 1000)

    func validate() throws {
        guard timeout >= 0, timeout <= Self.maximumTimeout else {
            throw ValidationError(
                "--timeout takes a number of seconds from 0 to \(Int(Self.maximumTimeout)); \(Self.seconds(timeout)) is not one"
            )
        }
    }

    /// How a command uses the database.
    enum Access {
        /// Reads only: the file is opened read-only, and read without SQLite's shared lock, so
        /// that the reader never makes another program's write fail; a read may then be done
        /// again, so its body must have no effect beyond its result.
        case read
        /// Reads only, and prints rows as it reads them: a read done again would print them
        /// twice, so it holds SQLite's shared lock while it reads, as any reader does.
        case stream
        /// Changes rows of an existing file.
        case write
        /// Changes the schema; the file is created when it does not exist.
        case create
    }

    /// The file to use: `--db`, then `SQLQ_DATABASE`; nil for the demo database.
    var path: String? {
        if let db { return db }
        if let variable = getenv("SQLQ_DATABASE"), variable.pointee != 0 { return String(cString: variable) }
        return nil
    }

    /// The PostgreSQL server to use, when `--db` or `SQLQ_DATABASE` is a PostgreSQL URL, or
    /// when neither is given and `DATABASE_URL` is one; nil for an SQLite file. (A
    /// `DATABASE_URL` that is not a PostgreSQL URL is left alone: it is often another program's.)
    /// Its statements wait at most `--timeout` for another session's lock.
    func postgreSQLURL() throws(DatabaseURLError) -> DatabaseURL? {
        let text: String
        if let path {
            text = path
        } else {
            guard let variable = getenv("DATABASE_URL") else { return nil }
            text = String(cString: variable)
        }
        guard DatabaseURL.isPostgreSQL(text) else { return nil }
        var url = try DatabaseURL(parsing: text)
        url.timeout = timeout
        return url
    }

    /// Whether the database is a PostgreSQL server rather than an SQLite file (a malformed URL
    /// counts: its command reports it).
    var isPostgreSQL: Bool {
        if let path { return DatabaseURL.isPostgreSQL(path) }
        guard let variable = getenv("DATABASE_URL") else { return false }
        return DatabaseURL.isPostgreSQL(String(cString: variable))
    }

    /// How another sqlq command names the same database: `--db PATH`; nothing when
    /// `SQLQ_DATABASE` names it; `--db FILE` for the demo database, which only a file replaces.
    var commandLineArguments: [String] {
        if let db { return ["--db", db] }
        return path == nil ? ["--db", "FILE"] : []
    }

    /// Opens the database for `access`.
    ///
    /// - Parameter demoNote: Shown on standard error (when it is a terminal) if the demo database
    ///   is used, for commands where its being in memory matters.
    func open(_ access: Access, demoNote: String? = nil) throws -> DatabaseQueue {
        guard let path else {
            if let demoNote, isatty(2) == 1 {
                let errors = OutputStream(fileDescriptor: 2)
                errors.writeLine(
                    TextStyle.forDescriptor(2).dim("Note: using the demo database, in memory: " + demoNote))
            }
            return try DemoDatabase.open()
        }
        if access != .create {
            var status = stat()
            guard stat(path, &status) == 0 else {
                throw CommandError.failure("no such database file: \"\(path)\"")
            }
            if (status.st_mode & S_IFMT) == S_IFDIR {
                throw CommandError.failure("\"\(path)\" is a directory, not a database file")
            }
        }
        var configuration =
            access == .read || access == .stream ? Database.Configuration.readOnly : Database.Configuration()
        // A reader of another program's database is never the reason one of its writes fails.
        configuration.readsWithoutLocks = access == .read
        configuration.busyTimeout = .seconds(timeout)
        if access == .write { configuration.create = false }
        do {
            return try DatabaseQueue(path: path, configuration: configuration)
        } catch let error as SQLiteError {
            // Opening reads the file: a lock held too long gets the same advice as a write.
            if error.code == ResultCode.busy || error.code == ResultCode.locked, let failure = failure(error) {
                throw failure
            }
            throw CommandError.failure(
                "cannot open database \"\(path)\": \(error.message) (SQLite error \(error.extendedCode))")
        }
    }

    /// `error` as a failure of the database itself, named by its path with what to do, when it
    /// is one (read-only, locked, full, damaged, an I/O error); nil when it is about the data
    /// written, which the caller reports where that data came from.
    ///
    /// - Parameter outcome: What the failure means for the command, such as "nothing was imported".
    func failure(_ error: any Error, outcome: String? = nil) -> CommandError? {
        guard let error = error as? SQLiteError, Self.isDatabaseFailure(error) else { return nil }
        let name = "the database \"\(path ?? ":memory:")\""
        let problem: String
        switch error.code {
        case ResultCode.busy, ResultCode.locked:
            // SQLite does not say whether the lock is a writer's or a reader's (which keeps a
            // writer from committing in a rollback-journal database).
            problem =
                "\(name) is locked: another process holds a lock on it (reading or writing), and it held the lock "
                + "for longer than --timeout (\(Self.seconds(timeout)) s); "
                + "try again once it is done, or wait longer with --timeout SECONDS"
        case ResultCode.readOnly:
            problem =
                "cannot write to \(name): it is read-only (\(error.message)); "
                + "this user needs write access to the file and to its folder, where SQLite keeps its journal"
        case ResultCode.full:
            problem = "cannot write to \(name): the disk is full; free some space and try again"
        case ResultCode.corrupt, ResultCode.notADatabase:
            problem =
                "\(name) is damaged (\(error.message)); check it with sqlite3 and PRAGMA integrity_check, "
                + "and restore it from a backup"
        default:
            problem = "\(name) failed: \(error.message) (SQLite error \(error.extendedCode))"
        }
        return .failure(outcome.map { problem + "\n  " + $0 } ?? problem)
    }

    /// A number of seconds as written: 60, 0.1.
    static func seconds(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }

    /// Whether SQLite failed for a reason of the database or its file rather than of the SQL or
    /// the values: constraint failures, type mismatches, oversized values and SQL errors are the
    /// data's.
    static func isDatabaseFailure(_ error: SQLiteError) -> Bool {
        switch error.code {
        case ResultCode.constraint, ResultCode.mismatch, ResultCode.tooBig, ResultCode.error, ResultCode.range,
            ResultCode.misuse:
            false
        default: true
        }
    }
}

/// The primary result codes of sqlite3.h that tell a failure of the database from one of the data.
private enum ResultCode {
    static let error: Int32 = 1
    static let busy: Int32 = 5
    static let locked: Int32 = 6
    static let readOnly: Int32 = 8
    static let corrupt: Int32 = 11
    static let full: Int32 = 13
    static let tooBig: Int32 = 18
    static let constraint: Int32 = 19
    static let mismatch: Int32 = 20
    static let misuse: Int32 = 21
    static let range: Int32 = 25
    static let notADatabase: Int32 = 26
}
