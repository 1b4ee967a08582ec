import Foundation
import Testing

@testable import SQLite

@Suite("DatabasePool")
struct DatabasePoolTests {
    @Test("a pool puts the file in WAL mode and reads what was written")
    func walMode() async throws {
        let folder = try TemporaryDirectory()
        let pool = try DatabasePool(path: folder.file("pool.sqlite"))
        try await pool.write { db in
            try db.execute("CREATE TABLE t(x)")
            try db.execute("INSERT INTO t VALUES (1)")
        }
        #expect(try await pool.read { db in try db.fetchOne(String.self, "PRAGMA journal_mode") } == "wal")
        let sum = try await pool.read { db in try db.fetchOne(Int.self, "SELECT sum(x) FROM t") }
        #expect(sum == 1)
    }

    @Test("an in-memory pool is refused with a clear error")
    func inMemoryRefused() {
        let error = #expect(throws: SQLiteError.self) { try DatabasePool(path: ":memory:") }
        #expect(error?.message.contains("use DatabaseQueue") == true)
    }

    @Test("a read sees one snapshot and does not wait for an open write")
    func snapshotIsolation() throws {
        let folder = try TemporaryDirectory()
        let pool = try DatabasePool(path: folder.file("pool.sqlite"))
        try pool.write { db in
            try db.execute("CREATE TABLE t(x)")
            try db.execute("INSERT INTO t VALUES (1)")
        }
        // The writer stays inside its transaction until the reader has finished, so the read can
        // only complete if it does not wait for the writer.
        let readerDone = DispatchSemaphore(value: 0)
        let writerInside = DispatchSemaphore(value: 0)
        let writerFinished = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            try? pool.write { db in
                try db.execute("INSERT INTO t VALUES (2)")
                writerInside.signal()
                _ = readerDone.wait(timeout: .now() + .seconds(120))
            }
            writerFinished.signal()
        }
        try #require(writerInside.wait(timeout: .now() + .seconds(120)) == .success, "the writer never started")
        let seen = try pool.read { db in
            let first = try db.fetchOne(Int.self, "SELECT count(*) FROM t")
            let second = try db.fetchOne(Int.self, "SELECT count(*) FROM t")
            return [first, second]
        }
        readerDone.signal()
        #expect(writerFinished.wait(timeout: .now() + .seconds(120)) == .success, "the writer never finished")
        #expect(seen == [1, 1])
        #expect(try pool.read { db in try db.fetchOne(Int.self, "SELECT count(*) FROM t") } == 2)
    }

    @Test("many concurrent reads and writes all complete")
    func concurrentUse() async throws {
        let folder = try TemporaryDirectory()
        let pool = try DatabasePool(path: folder.file("pool.sqlite"), maximumReaderCount: 3)
        try await pool.write { db in try db.execute("CREATE TABLE t(x INTEGER)") }
        let counts = try await withThrowingTaskGroup(of: Int?.self) { group in
            for i in 0..<50 {
                group.addTask {
                    try await pool.write { db in
                        try db.execute("INSERT INTO t VALUES (?)", [.integer(Int64(i))])
                        return nil
                    }
                }
                group.addTask { try await pool.read { db in try db.fetchOne(Int.self, "SELECT count(*) FROM t") } }
            }
            var counts: [Int] = []
            for try await count in group { if let count { counts.append(count) } }
            return counts
        }
        #expect(counts.count == 50)
        #expect(counts.allSatisfy { (0...50).contains($0) })
        #expect(try await pool.read { db in try db.fetchOne(Int.self, "SELECT count(*) FROM t") } == 50)
    }

    @Test("a read cannot write")
    func readIsReadOnly() throws {
        let folder = try TemporaryDirectory()
        let pool = try DatabasePool(path: folder.file("pool.sqlite"))
        try pool.write { db in try db.execute("CREATE TABLE t(x)") }
        #expect(throws: SQLiteError.self) { try pool.read { db in try db.execute("INSERT INTO t VALUES (1)") } }
    }
}
