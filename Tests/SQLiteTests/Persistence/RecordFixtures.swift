import Foundation

@testable import SQLite

/// A database with lists, items (every kind of constraint), notes and memberships.
func makeRecordsDatabase() throws -> Database {
    let db = try Database()
    try db.executeScript(
        """
        CREATE TABLE lists(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
        CREATE TABLE items(
            id INTEGER PRIMARY KEY,
            list_id INTEGER REFERENCES lists(id),
            title TEXT NOT NULL CHECK (length(title) > 0),
            done INTEGER NOT NULL DEFAULT 0,
            priority INTEGER CONSTRAINT priority_range CHECK (priority BETWEEN 0 AND 5),
            due TEXT,
            created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%f', 'now')),
            UNIQUE(list_id, title)
        );
        CREATE TABLE notes(
            id INTEGER PRIMARY KEY,
            body TEXT NOT NULL,
            kind TEXT NOT NULL,
            tags TEXT NOT NULL,
            pinned INTEGER NOT NULL,
            edited TEXT,
            attachment BLOB,
            meta TEXT
        );
        CREATE TABLE memberships(
            list_id INTEGER NOT NULL,
            user TEXT NOT NULL,
            role TEXT NOT NULL,
            PRIMARY KEY(list_id, user)
        ) WITHOUT ROWID;
        INSERT INTO lists(id, name) VALUES (1, 'groceries'), (2, 'chores');
        """)
    return db
}

/// A record with hand-written encoding and decoding: the fast paths.
struct ItemRecord: PersistableRecord, FetchableRow, Equatable {
    static let tableName = "items"
    static let databaseColumns = ["id", "list_id", "title", "done", "priority", "due"]

    var id: Int64?
    var listID: Int64?
    var title: String
    var done = false
    var priority: Int?
    var due: Date?

    init(
        id: Int64? = nil, listID: Int64? = 1, title: String, done: Bool = false, priority: Int? = nil, due: Date? = nil
    ) {
        self.id = id
        self.listID = listID
        self.title = title
        self.done = done
        self.priority = priority
        self.due = due
    }

    init(row: BorrowedRow) throws {
        id = try row["id"]
        listID = try row["list_id"]
        title = try row["title"]
        done = try row["done"]
        priority = try row["priority"]
        due = try row["due"]
    }

    func encode(to columns: inout ColumnEncoder) {
        columns.encode(id)
        columns.encode(listID)
        columns.encode(title)
        columns.encode(done)
        columns.encode(priority)
        columns.encode(due)
    }

    mutating func didInsert(rowID: Int64) { id = rowID }
}

/// A record written and read through Codable: its coding keys name the columns.
struct Note: PersistableRecord, FetchableRow, Codable, Equatable {
    static let tableName = "notes"

    enum Kind: String, Codable { case text, checklist }
    struct Meta: Codable, Equatable {
        var source: String
        var version: Int
    }

    var id: Int64?
    var body: String
    var kind: Kind
    var tags: [String]
    var pinned: Bool
    var edited: Date?
    var attachment: Data?
    var meta: Meta?

    mutating func didInsert(rowID: Int64) { id = rowID }
}

/// A record of a WITHOUT ROWID table with a composite key.
struct Membership: PersistableRecord, Codable, FetchableRow, Equatable {
    static let tableName = "memberships"
    static let primaryKey = PrimaryKey.columns("list_id", "user")

    var listID: Int64
    var user: String
    var role: String

    enum CodingKeys: String, CodingKey {
        case listID = "list_id"
        case user, role
    }

    init(listID: Int64, user: String, role: String) {
        self.listID = listID
        self.user = user
        self.role = role
    }

    init(row: BorrowedRow) throws {
        listID = try row["list_id"]
        user = try row["user"]
        role = try row["role"]
    }
}

/// Milliseconds are what SQLite's date format keeps.
func wholeMilliseconds(_ date: Date) -> Date {
    Date(timeIntervalSince1970: (date.timeIntervalSince1970 * 1000).rounded() / 1000)
}
