import Dispatch
import Foundation
import Glibc
import Testing

@testable import SharingSQLite

// Serialized, as they were: each test watches a file on a thread of its own, and one blocks a
// thread of the test pool while it keeps the writer busy.
@Suite(.serialized) struct SQLiteLiveSourceTests {
    @Test func commitByAnotherConnectionThatStaysOpenReachesTheReader() async throws {
        let path = temporaryDatabasePath()
        let pool = try DatabasePool(path: path)
        try await pool.write { db in try db.execute("CREATE TABLE items(id INTEGER PRIMARY KEY, title TEXT NOT NULL)") }
        let reader = SharedReader<[Item]>(value: [])
        try await reader.load(.fetchAll("SELECT id, title FROM items ORDER BY id", database: pool))
        let other = try Database(path: path)
        try other.execute("INSERT INTO items(title) VALUES ('elsewhere')")
        try await value(of: reader) { $0.map(\.title) == ["elsewhere"] }
        try other.execute("INSERT INTO items(title) VALUES ('again')")
        try await value(of: reader) { $0.map(\.title) == ["elsewhere", "again"] }
    }

    @Test func aColumnAddedByAnotherConnectionReachesTheReader() async throws {
        let path = temporaryDatabasePath()
        let pool = try DatabasePool(path: path)
        try await pool.write { db in
            try db.execute("CREATE TABLE items(id INTEGER PRIMARY KEY, title TEXT NOT NULL)")
            try db.execute("INSERT INTO items(title) VALUES ('a')")
        }
        let reader = SharedReader<[String]>(value: [])
        try await reader.load(.fetch(ColumnsAndRows(sql: "SELECT * FROM items"), database: pool))
        #expect(reader.wrappedValue == ["id", "title", "1 rows"])
        let other = try Database(path: path)
        try other.execute("ALTER TABLE items ADD COLUMN note TEXT")
        try await value(of: reader) { $0 == ["id", "title", "note", "1 rows"] }
        // Every reader connection of the pool reads the new columns, not only the first to refetch.
        for title in ["b", "c", "d", "e"] {
            try other.execute("INSERT INTO items(title) VALUES (?)", [.text(title)])
            let count = try other.fetchOne(Int.self, "SELECT count(*) FROM items") ?? 0
            try await value(of: reader) { $0.last == "\(count) rows" }
            #expect(reader.wrappedValue.dropLast() == ["id", "title", "note"])
        }
    }

    @Test func aDeletedFileIsReportedToItsReaders() async throws {
        let path = temporaryDatabasePath()
        let db = try DatabaseQueue(path: path)
        try await db.write { db in try db.execute("CREATE TABLE items(id INTEGER PRIMARY KEY, title TEXT NOT NULL)") }
        let reader = SharedReader<Int>(value: -1)
        try await reader.load(.fetchOne("SELECT count(*) FROM items", database: db))
        try FileManager.default.removeItem(atPath: path)
        try await eventually(reader) {
            $0.loadError as? SharingSQLiteError == .databaseFileDeleted(path: path)
        }
        #expect(reader.wrappedValue == 0, "the last value stays")
        // Fetching again does not bring a value from the deleted file back.
        await #expect(throws: SharingSQLiteError.databaseFileDeleted(path: path)) { try await reader.load() }
    }

    @Test(arguments: [false, true])
    func theFirstReaderMayBeCreatedInsideAWriteOrARead(inWrite: Bool) async throws {
        // A file, so that the file monitor starts too: neither it nor the commit hook may wait
        // for the writer from inside the writer's own closure.
        let db = try DatabaseQueue(path: temporaryDatabasePath())
        try await db.write { db in try db.execute("CREATE TABLE items(id INTEGER PRIMARY KEY, title TEXT NOT NULL)") }
        let key = SharedReaderKey<Int>.fetchOne("SELECT count(*) FROM items", database: db)
        // Synchronous: the closure runs on the writer's queue, as it would in a caller's write.
        func makeReader() throws -> SharedReader<Int> {
            if inWrite {
                return try db.write { db in
                    try db.execute("INSERT INTO items(title) VALUES ('a')")
                    return SharedReader(wrappedValue: -1, key)
                }
            }
            return try db.read { _ in SharedReader(wrappedValue: -1, key) }
        }
        let reader = try makeReader()
        try await eventually(reader) { $0.wrappedValue == (inWrite ? 1 : 0) }
        try await db.write { db in try db.execute("INSERT INTO items(title) VALUES ('b')") }
        try await eventually(reader) { $0.wrappedValue == (inWrite ? 2 : 1) }
    }

    @Test func aFileDeletedWhileTheWriterIsBusyIsReportedAtOnce() async throws {
        let path = temporaryDatabasePath()
        let pool = try DatabasePool(path: path)
        try await pool.write { db in try db.execute("CREATE TABLE items(id INTEGER PRIMARY KEY, title TEXT NOT NULL)") }
        let reader = SharedReader<Int>(value: -1)
        try await reader.load(.fetchOne("SELECT count(*) FROM items", database: pool))
        // The writer stays busy until the end of the test.
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            _ = try? pool.write { db in
                try db.execute("INSERT INTO items(title) VALUES ('a')")
                entered.signal()
                release.wait()
            }
        }
        defer { release.signal() }
        entered.wait()
        // A change next to the file wakes the monitor, whose check of `data_version` must wait
        // for the writer; the deletion right after must not wait behind it.
        #expect(FileManager.default.createFile(atPath: path + "-journal", contents: Data()))
        try FileManager.default.removeItem(atPath: path)
        try await eventually(reader) {
            $0.loadError as? SharingSQLiteError == .databaseFileDeleted(path: path)
        }
    }

    @Test func aReplacedFileIsReportedToItsReaders() async throws {
        let path = temporaryDatabasePath()
        let db = try DatabaseQueue(path: path)
        try await db.write { db in try db.execute("CREATE TABLE items(id INTEGER PRIMARY KEY, title TEXT NOT NULL)") }
        let reader = SharedReader<Int>(value: -1)
        try await reader.load(.fetchOne("SELECT count(*) FROM items", database: db))
        let replacement = path + ".new"
        try Database(path: replacement).executeScript(
            "CREATE TABLE items(id INTEGER PRIMARY KEY, title TEXT NOT NULL); INSERT INTO items(title) VALUES ('x');")
        #expect(rename(replacement, path) == 0)
        try await eventually(reader) {
            $0.loadError as? SharingSQLiteError == .databaseFileReplaced(path: path)
        }
        // The path opened again reads the new file.
        try await reader.load(.fetchOne("SELECT count(*) FROM items", database: try DatabaseQueue(path: path)))
        #expect(reader.wrappedValue == 1)
        #expect(reader.loadError == nil)
    }
}

/// The result's column names, then its row count as "N rows".
private struct ColumnsAndRows: FetchKeyRequest {
    let sql: String

    func fetch(_ db: Database) throws -> [String] {
        let statement = try db.cachedStatement(sql)
        defer { statement.reset() }
        var count = 0
        while try statement.step() { count += 1 }
        return statement.columnNames + ["\(count) rows"]
    }
}
