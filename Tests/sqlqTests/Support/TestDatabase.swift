import Foundation
import SQLite

/// A database file for one test, in its own temporary directory.
struct TestDatabase {
    let directory: TemporaryDirectory
    let path: String

    /// The demo database (Migrations/: 5 lists, 12,000 items) in a file.
    static func demo() throws -> TestDatabase {
        let directory = try TemporaryDirectory()
        let path = directory.file("demo.sqlite").path
        let queue = try DatabaseQueue(path: path)
        var migrator = Migrator()
        try migrator.registerMigrations(
            inDirectory: Executable.repositoryRoot.appendingPathComponent("Migrations").path)
        try migrator.migrate(queue)
        return TestDatabase(directory: directory, path: path)
    }

    /// A database file made by `sql`.
    static func with(_ sql: String) throws -> TestDatabase {
        let directory = try TemporaryDirectory()
        let path = directory.file("test.sqlite").path
        try Database(path: path).executeScript(sql)
        return TestDatabase(directory: directory, path: path)
    }

    /// Runs a read on a connection of its own.
    func read<T>(_ body: (Database) throws -> T) throws -> T {
        try body(try Database(path: path, configuration: .readOnly))
    }

    func count(_ sql: String, _ arguments: [DatabaseValue] = []) throws -> Int {
        try read { db in try db.fetchOne(Int.self, sql, arguments) ?? -1 }
    }

    /// `sqlq` with `--db` this file.
    func run(_ arguments: [String], environment: [String: String] = [:], input: String? = nil) throws -> CommandResult {
        try Executable.run(arguments + ["--db", path], environment: environment, input: input)
    }
}
