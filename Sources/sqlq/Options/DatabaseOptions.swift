import ArgumentParser
import SQLite

#if canImport(Glibc)
    import Glibc
#endif

/// `--db PATH`, shared by every command.
struct DatabaseOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "The SQLite database file. Defaults to $SQLQ_DATABASE, then to the demo database, built in memory from Migrations/.",
            valueName: "path"),
        completion: .file())
    var db: String?

    /// How a command uses the database.
    enum Access {
        /// Reads only: the file is opened read-only.
        case read
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
        var configuration = Database.Configuration()
        if access == .read {
            configuration = .readOnly
        } else if access == .write {
            configuration.create = false
        }
        return try DatabaseQueue(path: path, configuration: configuration)
    }
}
