import Foundation
import Locking
import SQLite
import Synchronization
import Testing

@Suite("Concurrent writers", .onProcessThreads)
struct ConcurrentWriterTests {
    @Test(
        "Four importing processes and a reader: every row arrives, each import all at once",
        arguments: ["wal", "delete"])
    func fourWriters(journal: String) throws {
        let database = try TestDatabase.with("CREATE TABLE t(id INTEGER PRIMARY KEY, writer INTEGER, n INTEGER);")
        _ = try Database(path: database.path).fetchOne(String.self, "PRAGMA journal_mode = \(journal)")
        let writers = 4
        let rounds = 3
        let rows = 2_000
        var files: [String] = []
        for writer in 0..<writers {
            var csv = "writer,n\n"
            for n in 0..<rows { csv += "\(writer),\(n)\n" }
            files.append(try database.directory.write("writer-\(writer).csv", csv))
        }
        let (path, inputs) = (database.path, files)
        let running = Atomic(writers)
        let counts = Lock<[Int]>([])
        let failures = Lock<[String]>([])
        // One thread per process: the writers and the reader all run at once, however few cores.
        let group = DispatchGroup()
        for index in 0..<writers {
            group.enter()
            Thread {
                defer {
                    running.subtract(1, ordering: .sequentiallyConsistent)
                    group.leave()
                }
                for _ in 0..<rounds {
                    do {
                        let result = try BackgroundCommand(["import", "t", inputs[index], "--db", path]).wait()
                        if result.status != 0 { failures.withLock { $0.append(result.errors) } }
                    } catch {
                        failures.withLock { $0.append("\(error)") }
                    }
                }
            }.start()
        }
        group.enter()
        Thread {
            defer { group.leave() }
            repeat {
                do {
                    let result = try BackgroundCommand(["query", "t", "--count", "--db", path]).wait()
                    guard result.status == 0, let count = Int(result.lines.first ?? "") else {
                        failures.withLock { $0.append("reader: \(result.errors)") }
                        continue
                    }
                    counts.withLock { $0.append(count) }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            } while running.load(ordering: .sequentiallyConsistent) > 0
        }.start()
        #expect(group.wait(timeout: .now() + 120) == .success, "the processes still run after 120 s")
        #expect(failures.withLock { $0 } == [])
        #expect(try database.count("SELECT count(*) FROM t") == writers * rounds * rows)
        for writer in 0..<writers {
            #expect(
                try database.count("SELECT count(DISTINCT n) FROM t WHERE writer = ?", [.integer(Int64(writer))])
                    == rows)
        }
        let seen = counts.withLock { $0 }
        #expect(!seen.isEmpty)
        #expect(seen.allSatisfy { $0 % rows == 0 }, "a reader saw part of an import: \(seen)")
        #expect(seen == seen.sorted(), "a reader saw rows disappear: \(seen)")
        #expect(try database.read { db in try db.fetchOne(String.self, "PRAGMA integrity_check") } == "ok")
    }
}
