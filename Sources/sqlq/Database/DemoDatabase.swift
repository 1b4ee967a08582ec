import SQLite

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The demo database: the repository's `Migrations/` applied to a fresh in-memory database, so
/// that `swift run sqlq query items …` works on a fresh checkout with no file at hand.
enum DemoDatabase {
    /// The repository's `Migrations/` folder: in the working directory, or found from this
    /// source file's place in the repository. For the demo database only: `migrate` never
    /// falls back to it for a user's file.
    static func migrationsDirectory() -> String? {
        let candidates = [
            FileManager.default.currentDirectoryPath + "/Migrations",
            URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                .appendingPathComponent("../../../Migrations").standardized.path,
        ]
        return candidates.first { FileManager.default.fileExists(atPath: $0) }
    }

    /// Builds the demo database in memory.
    static func open() throws -> DatabaseQueue {
        guard let directory = migrationsDirectory() else {
            throw CommandError.failure(
                "no database given and no Migrations/ folder to build the demo database from; "
                    + "pass --db FILE or set SQLQ_DATABASE")
        }
        let queue = try DatabaseQueue()
        var migrator = Migrator()
        try migrator.registerMigrations(inDirectory: directory)
        try migrator.migrate(queue)
        return queue
    }
}
