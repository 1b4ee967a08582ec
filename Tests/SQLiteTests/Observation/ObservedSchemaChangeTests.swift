import Foundation
import Testing

@testable import SQLite

/// Collects what a connection's change observer receives.
private final class Commits {
    var all: [DatabaseChanges] = []
    var tables: Set<String> { Set(all.flatMap(\.changedTables)) }
}

private func schemaDatabase(observed: Bool) throws -> (Database, Commits) {
    let db = try Database()
    try db.executeScript(
        """
        CREATE TABLE items(id INTEGER PRIMARY KEY, title TEXT NOT NULL, note TEXT);
        CREATE INDEX items_title ON items(title);
        CREATE VIEW titles AS SELECT title FROM items;
        CREATE TABLE log(x);
        CREATE TRIGGER items_logged AFTER INSERT ON items BEGIN INSERT INTO log VALUES (new.id); END;
        INSERT INTO items(title) VALUES ('a'), ('b');
        """)
    let commits = Commits()
    if observed { db.addChangeObserver { commits.all.append($0) } }
    return (db, commits)
}

private func schemaNames(_ db: Database) throws -> Set<String> {
    Set(try db.fetchAll(String.self, "SELECT name FROM sqlite_master"))
}

private func columns(of table: String, in db: Database) throws -> [String] {
    try db.fetchAll(String.self, "SELECT name FROM pragma_table_info(?)", [.text(table)])
}

/// How a statement is run: alone, or as part of a script.
enum Runner: CaseIterable, Sendable {
    case execute, script

    func run(_ sql: String, on db: Database) throws {
        switch self {
        case .execute: try db.execute(sql)
        case .script: try db.executeScript(sql + ";")
        }
    }
}

@Suite("Schema changes on an observed connection")
struct ObservedSchemaChangeTests {
    @Test("DROP TABLE, DROP VIEW, DROP INDEX and DROP TRIGGER drop, observed or not", arguments: [false, true])
    func drops(observed: Bool) throws {
        for runner in Runner.allCases {
            let (db, commits) = try schemaDatabase(observed: observed)
            try runner.run("DROP TRIGGER items_logged", on: db)
            try runner.run("DROP INDEX items_title", on: db)
            try runner.run("DROP VIEW titles", on: db)
            try runner.run("DROP TABLE items", on: db)
            #expect(try schemaNames(db) == ["log"], "\(runner)")
            try runner.run("CREATE TABLE items(id INTEGER PRIMARY KEY)", on: db)
            try runner.run("CREATE VIEW titles AS SELECT id FROM items", on: db)
            #expect(try schemaNames(db) == ["log", "items", "titles"], "\(runner)")
            if observed { #expect(commits.tables.isSuperset(of: ["items", "titles"]), "\(runner)") }
        }
    }

    @Test("a virtual table drops while observed")
    func dropVirtualTable() throws {
        let (db, commits) = try schemaDatabase(observed: true)
        // FTS5 is part of the usual builds of SQLite, not of every one.
        guard (try? db.execute("CREATE VIRTUAL TABLE notes USING fts5(body)")) != nil else { return }
        try db.execute("INSERT INTO notes(body) VALUES ('hello')")
        try db.execute("DROP TABLE notes")
        #expect(try db.fetchOne(Int.self, "SELECT count(*) FROM sqlite_master WHERE name LIKE 'notes%'") == 0)
        #expect(commits.all.last?.contains(table: "notes") == true)
    }

    @Test("ANALYZE (twice: it replaces its statistics), REINDEX and VACUUM do their work while observed")
    func maintenance() throws {
        let folder = try TemporaryDirectory()
        let db = try Database(path: folder.file("db.sqlite"))
        try db.executeScript(
            """
            CREATE TABLE items(id INTEGER PRIMARY KEY, title TEXT);
            CREATE INDEX items_title ON items(title);
            INSERT INTO items(title) VALUES ('a'), ('b');
            """)
        db.addChangeObserver { _ in }
        try db.execute("ANALYZE")
        try db.execute("ANALYZE")
        #expect(try db.fetchOne(Int.self, "SELECT count(*) FROM sqlite_stat1 WHERE idx = 'items_title'") == 1)
        try db.execute("REINDEX items")
        try db.execute("DELETE FROM items")
        try db.execute("VACUUM")
        #expect(try db.fetchOne(Int.self, "SELECT count(*) FROM items") == 0)
    }

    @Test("a table with AUTOINCREMENT, in a transaction, drops and comes back empty")
    func dropAutoincrementInTransaction() throws {
        let (db, commits) = try schemaDatabase(observed: true)
        try db.execute("CREATE TABLE counters(id INTEGER PRIMARY KEY AUTOINCREMENT, n)")
        try db.execute("INSERT INTO counters(n) VALUES (1)")
        try db.transaction { db in
            try db.execute("DROP TABLE counters")
            try db.execute("CREATE TABLE counters(id INTEGER PRIMARY KEY AUTOINCREMENT, n)")
        }
        #expect(try db.fetchOne(Int.self, "SELECT count(*) FROM counters") == 0)
        #expect(commits.all.last?.contains(table: "counters") == true)
    }

    @Test("ALTER TABLE drops, renames and adds columns, renames tables, and reports the table")
    func alterTable() throws {
        for runner in Runner.allCases {
            let (db, commits) = try schemaDatabase(observed: true)
            try runner.run("DROP VIEW titles", on: db)
            commits.all = []
            try runner.run("ALTER TABLE items DROP COLUMN note", on: db)
            #expect(try columns(of: "items", in: db) == ["id", "title"], "\(runner)")
            #expect(commits.all.last?.contains(table: "items") == true, "\(runner)")
            try runner.run("ALTER TABLE items ADD COLUMN done INTEGER NOT NULL DEFAULT 0", on: db)
            #expect(try columns(of: "items", in: db) == ["id", "title", "done"], "\(runner)")
            #expect(commits.all.count == 2 && commits.all.last?.contains(table: "items") == true, "\(runner)")
            try runner.run("ALTER TABLE items RENAME COLUMN done TO finished", on: db)
            #expect(try columns(of: "items", in: db) == ["id", "title", "finished"], "\(runner)")
            try runner.run("ALTER TABLE items RENAME TO things", on: db)
            #expect(try schemaNames(db) == ["things", "items_title", "log", "items_logged"], "\(runner)")
            #expect(try db.fetchOne(Int.self, "SELECT count(*) FROM things") == 2, "\(runner)")
            #expect(commits.all.last?.contains(table: "items") == true, "\(runner)")
        }
    }

    @Test("a rebuild (create new, copy, drop old, rename) in one transaction keeps the rows")
    func rebuild() throws {
        for runner in Runner.allCases {
            let (db, commits) = try schemaDatabase(observed: true)
            try db.transaction { db in
                try runner.run("DROP VIEW titles", on: db)
                try runner.run("CREATE TABLE new_items(id INTEGER PRIMARY KEY, title TEXT NOT NULL)", on: db)
                try runner.run("INSERT INTO new_items(id, title) SELECT id, title FROM items", on: db)
                try runner.run("DROP TABLE items", on: db)
                try runner.run("ALTER TABLE new_items RENAME TO items", on: db)
            }
            #expect(try schemaNames(db) == ["items", "log"], "\(runner)")
            #expect(try columns(of: "items", in: db) == ["id", "title"], "\(runner)")
            #expect(try db.fetchAll(String.self, "SELECT title FROM items ORDER BY id") == ["a", "b"], "\(runner)")
            #expect(commits.all.count == 1 && commits.all[0].contains(table: "items"), "\(runner)")
        }
    }

    @Test("DELETE without WHERE still reports every row after the schema changed under a cached statement")
    func deleteAfterSchemaChange() throws {
        let (db, commits) = try schemaDatabase(observed: true)
        try db.execute("DELETE FROM log")
        try db.execute("INSERT INTO log VALUES (1), (2)")
        try db.execute("ALTER TABLE log ADD COLUMN y")
        commits.all = []
        // The cached statement is prepared again by SQLite, because the schema changed.
        try db.execute("DELETE FROM log")
        #expect(commits.all == [DatabaseChanges(tables: ["log": [1, 2]])])
    }
}
