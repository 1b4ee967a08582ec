import Foundation
import SQLite

// Builds the demo database from Migrations/ in memory and runs a dynamic query on it, built with
// the query builder: the package's main job in one command.
//
//     swift run demo                 open items with priority >= 3, soonest due first
//     swift run demo 5 "coffee"      priority >= 5, titles containing "coffee"

/// The repository's `Migrations/` folder: next to the working directory, or next to this source file.
func migrationsDirectory() -> String? {
    let candidates = [
        FileManager.default.currentDirectoryPath + "/Migrations",
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Migrations").standardized.path,
    ]
    return candidates.first { FileManager.default.fileExists(atPath: $0) }
}

struct Item: FetchableRow, TableRecord {
    static let tableName = "items"
    var id: Int64
    var title: String
    var priority: Int
    var due: Date?

    init(row: Row) throws {
        id = try row["id"]
        title = try row["title"]
        priority = try row["priority"]
        due = try row["due"]
    }
}

/// The dynamic query: a Hashable value, compiled to bound SQL when it runs.
struct UrgentItems: FetchKeyRequest {
    var minimumPriority = 3
    var search: String?

    func fetch(_ db: Database) throws -> [Item] {
        try request.fetchAll(db)
    }

    var request: QueryInterfaceRequest<Item> {
        var request = Item.all()
            .filter(Column("priority") >= minimumPriority && !Column("done") && Column("due") != nil)
            .sort(Column("due"), Column("id"))
            .limit(10)
        if let search { request = request.filter(Column("title").contains(search)) }
        return request
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

    let arguments = CommandLine.arguments.dropFirst()
    var query = UrgentItems()
    if let first = arguments.first {
        guard let priority = Int(first) else {
            FileHandle.standardError.write(Data("demo: the first argument is a minimum priority (0 to 5), not \"\(first)\"\n".utf8))
            exit(2)
        }
        query.minimumPriority = priority
    }
    query.search = arguments.dropFirst().first

    let (count, items) = try queue.read { db in
        (try db.fetchOne(Int.self, "SELECT count(*) FROM items") ?? 0, try query.fetch(db))
    }
    print("Demo database: \(count) items.")
    print("SQL: \(query.request.sql)")
    print("Arguments: \(query.request.arguments)\n")
    print("id     priority  due                      title")
    for item in items {
        var due = "NULL"
        if let date = item.due, case .text(let text) = SQLiteValue(date) { due = text }
        print(
            String(item.id).padding(toLength: 7, withPad: " ", startingAt: 0)
                + String(item.priority).padding(toLength: 10, withPad: " ", startingAt: 0)
                + due.padding(toLength: 25, withPad: " ", startingAt: 0)
                + item.title)
    }
} catch {
    FileHandle.standardError.write(Data("demo: \(error)\n".utf8))
    exit(1)
}
