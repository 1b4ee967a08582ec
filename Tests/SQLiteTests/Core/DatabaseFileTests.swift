import CSQLite
import Foundation
import Testing

@testable import SQLite

/// Files in states a database meets in the field: an interrupted write, no write access,
/// corruption.
@Suite("Database files")
struct DatabaseFileTests {
    /// Makes `copy` what a crash in the middle of a write leaves behind: the file half written
    /// and a hot journal. The copy is taken while a write transaction is open and has spilled
    /// changed pages to the file, then that transaction is rolled back on the original.
    private func makeHotJournal(in folder: TemporaryDirectory) throws -> String {
        let path = folder.file("original.sqlite")
        let copy = folder.file("crashed.sqlite")
        let writer = try Database(path: path)
        try writer.execute("PRAGMA journal_mode = DELETE")
        try writer.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT NOT NULL)")
        try writer.transaction { db in
            for i in 1...2000 {
                try db.execute("INSERT INTO t(v) VALUES ('original-' || printf('%0100d', ?))", [.integer(Int64(i))])
            }
        }
        // A tiny page cache makes the update write changed pages to the file before it commits.
        try writer.execute("PRAGMA cache_size = 2")
        try writer.execute("BEGIN IMMEDIATE")
        try writer.execute("UPDATE t SET v = 'changed-' || substr(v, 10)")
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        try FileManager.default.copyItem(atPath: path + "-journal", toPath: copy + "-journal")
        try writer.execute("ROLLBACK")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: copy))
        #expect(bytes.range(of: Data("changed-".utf8)) != nil, "the copy holds half of the write")
        return copy
    }

    @Test("a read-only open rolls back the hot journal of an interrupted write and reads the data before it")
    func hotJournalRolledBack() throws {
        let folder = try TemporaryDirectory()
        let path = try makeHotJournal(in: folder)
        let db = try Database(path: path, configuration: .readOnly)
        #expect(db.isReadOnly)
        #expect(try db.fetchOne(Int.self, "SELECT count(*) FROM t") == 2000)
        #expect(try db.fetchOne(Int.self, "SELECT count(*) FROM t WHERE v LIKE 'original-%'") == 2000)
        #expect(try db.fetchOne(String.self, "PRAGMA integrity_check") == "ok")
        #expect(!FileManager.default.fileExists(atPath: path + "-journal"))
    }

    @Test("a read-only queue rolls back a hot journal too")
    func hotJournalQueue() async throws {
        let folder = try TemporaryDirectory()
        let path = try makeHotJournal(in: folder)
        let queue = try DatabaseQueue(path: path, configuration: .readOnly)
        #expect(
            try await queue.read { db in try db.fetchOne(Int.self, "SELECT count(*) FROM t WHERE v LIKE 'original-%'") }
                == 2000)
    }

    @Test("a hot journal that this connection cannot roll back gives an error that says what happened and what to do")
    func hotJournalWithoutWriteAccess() throws {
        let folder = try TemporaryDirectory()
        let path = try makeHotJournal(in: folder)
        // `mode=ro` denies write access whatever the file's permissions, even to root.
        let uri = "file:\(path)?mode=ro"
        let error = #expect(throws: SQLiteError.self) { try Database(path: uri, configuration: .readOnly) }
        #expect(error?.code == SQLITE_READONLY)
        #expect(error?.extendedCode == 776)  // SQLITE_READONLY_ROLLBACK
        #expect(error?.path == uri)
        #expect(error?.message.contains("hot journal") == true)
        #expect(error?.message.contains("interrupted write") == true)
        #expect(error?.message.contains("write access") == true)
        #expect(FileManager.default.fileExists(atPath: path + "-journal"), "nothing was changed")
        // Once a connection that can write has opened the file, read-only opens work.
        #expect(try Database(path: path, configuration: .readOnly).fetchOne(Int.self, "SELECT count(*) FROM t") == 2000)
    }

    @Test("a pool on a database it cannot write says why, naming the file", arguments: [false, true])
    func poolWithoutWriteAccess(uri: Bool) throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("db.sqlite")
        try Database(path: path).execute("CREATE TABLE t(x)")
        let error = #expect(throws: SQLiteError.self) {
            if uri {
                try DatabasePool(path: "file:\(path)?mode=ro")
            } else {
                try DatabasePool(path: path, configuration: .readOnly)
            }
        }
        #expect(error?.path == (uri ? "file:\(path)?mode=ro" : path))
        #expect(error?.message.contains("WAL") == true)
        #expect(error?.message.contains("write access") == true)
        #expect(error?.message.contains("DatabaseQueue") == true)
        #expect(error?.description.contains(path) == true)
    }

    @Test("opening a file of garbage fails with an error naming the file", arguments: [false, true])
    func garbageFile(readOnly: Bool) throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("garbage.sqlite")
        var generator = SystemRandomNumberGenerator()
        let garbage = (0..<8192).map { _ in UInt8.random(in: 0...255, using: &generator) }
        try Data(garbage).write(to: URL(fileURLWithPath: path))
        let configuration: Database.Configuration = readOnly ? .readOnly : .init()
        let error = #expect(throws: SQLiteError.self) { try Database(path: path, configuration: configuration) }
        #expect(error?.code == SQLITE_NOTADB)
        #expect(error?.path == path)
        #expect(error?.description.contains(path) == true)
        let queueError = #expect(throws: SQLiteError.self) {
            try DatabaseQueue(path: path, configuration: configuration)
        }
        #expect(queueError?.path == path)
        let poolError = #expect(throws: SQLiteError.self) { try DatabasePool(path: path, configuration: configuration) }
        #expect(poolError?.path == path)
    }

    @Test("a query that meets a corrupt page fails with an error naming the file")
    func corruptPage() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("corrupt.sqlite")
        do {
            let db = try Database(path: path)
            try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT)")
            for i in 1...200 { try db.execute("INSERT INTO t(v) VALUES (printf('%0200d', ?))", [.integer(Int64(i))]) }
        }
        // Page 1 holds the schema and stays intact; the pages of `t` become garbage.
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.seek(toOffset: 4096)
        try handle.write(contentsOf: Data(repeating: 0xA5, count: 8192))
        try handle.close()
        let db = try Database(path: path)
        let error = #expect(throws: SQLiteError.self) { try db.fetchAll("SELECT * FROM t") }
        #expect(error?.code == SQLITE_CORRUPT)
        #expect(error?.path.map { $0.hasSuffix("corrupt.sqlite") } == true)
        #expect(error?.sql == "SELECT * FROM t")
    }
}
