import Foundation

@testable import SQLite

/// A folder under the system's temporary directory, removed when the value is released.
final class TemporaryDirectory {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "sqlite-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> String { path + "/" + name }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// The repository's `Migrations/` folder: the demo database's schema and data.
let demoMigrationsDirectory: String = {
    var url = URL(fileURLWithPath: #filePath)
    while url.pathComponents.count > 1 {
        url.deleteLastPathComponent()
        let candidate = url.appendingPathComponent("Migrations")
        if FileManager.default.fileExists(
            atPath: candidate.appendingPathComponent("0001_create_lists_and_items.sql").path)
        {
            return candidate.path
        }
    }
    fatalError("Migrations/ not found above \(#filePath)")
}()

/// An in-memory database with an `items` table and a few rows.
func makeItemsDatabase() throws -> Database {
    let db = try Database()
    try db.execute(
        """
        CREATE TABLE items(
            id INTEGER PRIMARY KEY,
            title TEXT NOT NULL,
            done INTEGER NOT NULL DEFAULT 0,
            priority INTEGER,
            due TEXT,
            score REAL,
            data BLOB
        )
        """)
    try db.execute(
        "INSERT INTO items(title, done, priority, due, score) VALUES (?, ?, ?, ?, ?)",
        ["milk", false, 3, "2026-01-02 03:04:05.678", 1.5])
    try db.execute(
        "INSERT INTO items(title, done, priority, due, score) VALUES (?, ?, ?, ?, ?)",
        ["bread", true, nil, nil, nil])
    try db.execute("INSERT INTO items(title, done, priority) VALUES (?, ?, ?)", ["eggs", false, 1])
    return db
}
