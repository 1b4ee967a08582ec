import Foundation
import SQLite

// Builds the demo database from Migrations/ in memory and runs a filtered, sorted, limited query
// on it: the package's main job in one command, `swift run demo`.

/// The repository's `Migrations/` folder: next to the working directory, or next to this source file.
func migrationsDirectory() -> String? {
    let candidates = [
        FileManager.default.currentDirectoryPath + "/Migrations",
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Migrations").standardized.path,
    ]
    return candidates.first { FileManager.default.fileExists(atPath: $0) }
}

struct Item: FetchableRow {
    var id: Int64
    var list: String
    var title: String
    var priority: Int
    var due: Date?

    init(row: Row) throws {
        id = try row["id"]
        list = try row["list"]
        title = try row["title"]
        priority = try row["priority"]
        due = try row["due"]
    }
}

do {
    guard let directory = migrationsDirectory() else {
        FileHandle.standardError.write(Data("demo: cannot find the Migrations/ folder; run from the repository root\n".utf8))
        exit(1)
    }
    let queue = try DatabaseQueue()
    var migrator = Migrator()
    try migrator.registerMigrations(inDirectory: directory)
    try migrator.migrate(queue)

    let minimumPriority = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 3
    let (count, items) = try queue.read { db in
        let count = try db.fetchOne(Int.self, "SELECT count(*) FROM items") ?? 0
        let items = try db.fetchAll(Item.self, """
            SELECT items.id, lists.name AS list, items.title, items.priority, items.due
            FROM items JOIN lists ON lists.id = items.list_id
            WHERE items.priority >= ? AND NOT items.done AND items.due IS NOT NULL
            ORDER BY items.due, items.id
            LIMIT 10
            """, [.integer(Int64(minimumPriority))])
        return (count, items)
    }
    print("Demo database: \(count) items. Open items with priority >= \(minimumPriority), soonest due first:\n")
    print("id     list       priority  due                      title")
    for item in items {
        var due = "NULL"
        if let date = item.due, case .text(let text) = SQLiteValue(date) { due = text }
        print(
            String(item.id).padding(toLength: 7, withPad: " ", startingAt: 0)
                + item.list.padding(toLength: 11, withPad: " ", startingAt: 0)
                + String(item.priority).padding(toLength: 10, withPad: " ", startingAt: 0)
                + due.padding(toLength: 25, withPad: " ", startingAt: 0)
                + item.title)
    }
} catch {
    FileHandle.standardError.write(Data("demo: \(error)\n".utf8))
    exit(1)
}
