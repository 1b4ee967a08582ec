import Foundation
import Testing

@testable import SharingSQLite

/// How many columns a row has: follows `SELECT *` through schema changes.
private struct ColumnCount: FetchableRow, Equatable, Sendable {
    var count: Int
    init(count: Int) { self.count = count }
    init(row: BorrowedRow) throws { count = row.count }
}

@Suite struct SchemaAndScriptTests {
    @Test func dropTableWhileObservedDropsIt() async throws {
        let db = try makeItemsDatabase()
        @SharedReader(wrappedValue: -1, .fetchOne("SELECT count(*) FROM items", database: db)) var count: Int
        try await value(of: $count) { $0 == 2 }
        try await db.write { db in try db.execute("DROP TABLE items") }
        let tables = try await db.read { db in try db.fetchAll(String.self, "SELECT name FROM sqlite_master") }
        #expect(tables == ["other"])
        try await eventually($count) { $0.loadError != nil }
        try await db.write { db in
            try db.execute("CREATE TABLE items(id INTEGER PRIMARY KEY, title TEXT NOT NULL)")
            try db.execute("INSERT INTO items(title) VALUES ('new')")
        }
        try await value(of: $count) { $0 == 1 }
        #expect($count.loadError == nil)
    }

    @Test func dropViewWhileObservedDropsIt() async throws {
        let db = try makeItemsDatabase()
        try await db.write { db in try db.execute("CREATE VIEW titles AS SELECT title FROM items") }
        @SharedReader(.fetchAll("SELECT title FROM titles ORDER BY title", database: db)) var titles: [String]
        try await value(of: $titles) { $0 == ["a", "b"] }
        try await db.write { db in try db.execute("DROP VIEW titles") }
        try await eventually($titles) { $0.loadError != nil }
        try await db.write { db in try db.execute("CREATE VIEW titles AS SELECT upper(title) AS title FROM items") }
        try await value(of: $titles) { $0 == ["A", "B"] }
    }

    @Test func selectStarRefetchesAfterAddColumn() async throws {
        let db = try makeItemsDatabase()
        @SharedReader(.fetchAll("SELECT * FROM items ORDER BY id", database: db)) var rows: [ColumnCount]
        try await value(of: $rows) { $0 == [ColumnCount(count: 2), ColumnCount(count: 2)] }
        #expect($rows.fetchCount == 1)
        try await db.write { db in try db.execute("ALTER TABLE items ADD COLUMN done INTEGER NOT NULL DEFAULT 0") }
        // The cached statement reads the new column too.
        try await value(of: $rows) { $0 == [ColumnCount(count: 3), ColumnCount(count: 3)] }
        #expect($rows.fetchCount == 2)
    }

    @Test func renamedAndDroppedColumnsReachReaders() async throws {
        let db = try makeItemsDatabase()
        try await db.write { db in try db.execute("ALTER TABLE items ADD COLUMN note TEXT") }
        @SharedReader(wrappedValue: -1, .fetchOne("SELECT count(note) FROM items", database: db)) var notes: Int
        @SharedReader(wrappedValue: -1, .fetchOne("SELECT count(*) FROM items", database: db)) var count: Int
        try await value(of: $notes) { $0 == 0 }
        try await value(of: $count) { $0 == 2 }
        try await db.write { db in try db.execute("ALTER TABLE items DROP COLUMN note") }
        try await eventually($notes) { $0.loadError != nil }
        try await db.write { db in try db.execute("ALTER TABLE items RENAME TO things") }
        try await eventually($count) { $0.loadError != nil }
    }

    @Test func scriptDeleteReachesReaders() async throws {
        let db = try makeItemsDatabase()
        try await db.write { db in try db.execute("INSERT INTO items(title) VALUES ('c')") }
        @SharedReader(wrappedValue: -1, .fetchOne("SELECT count(*) FROM items", database: db)) var count: Int
        try await value(of: $count) { $0 == 3 }
        try await db.write { db in try db.executeScript("DELETE FROM items;") }
        try await value(of: $count) { $0 == 0 }
    }

    @Test func scriptUpdateOfTableWithoutRowidReachesReaders() async throws {
        let db = try makeItemsDatabase()
        try await db.write { db in
            try db.execute("CREATE TABLE w(k TEXT PRIMARY KEY, v INTEGER) WITHOUT ROWID")
            try db.execute("INSERT INTO w VALUES ('x', 1)")
        }
        @SharedReader(wrappedValue: -1, .fetchOne("SELECT v FROM w WHERE k = 'x'", database: db)) var v: Int
        try await value(of: $v) { $0 == 1 }
        try await db.write { db in try db.executeScript("UPDATE w SET v = 2 WHERE k = 'x';") }
        try await value(of: $v) { $0 == 2 }
    }

    @Test func sqlMigrationReachesReaders() async throws {
        let db = try makeItemsDatabase()
        @SharedReader(.fetchAll("SELECT title FROM items ORDER BY id", database: db)) var titles: [String]
        try await value(of: $titles) { $0 == ["a", "b"] }
        var migrator = Migrator()
        try migrator.registerMigration(
            "rebuild",
            sql: """
                CREATE TABLE new_items(id INTEGER PRIMARY KEY, title TEXT NOT NULL, done INTEGER NOT NULL DEFAULT 0);
                INSERT INTO new_items(id, title) SELECT id, upper(title) FROM items;
                DROP TABLE items;
                ALTER TABLE new_items RENAME TO items;
                """)
        try migrator.migrate(db)
        try await value(of: $titles) { $0 == ["A", "B"] }
        let columns = try await db.read { db in
            try db.fetchAll(String.self, "SELECT name FROM pragma_table_info('items')")
        }
        #expect(columns == ["id", "title", "done"])
    }
}
