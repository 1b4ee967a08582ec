import Foundation
import Locking
import Testing

@testable import SQLite

@Suite struct BatchInsertTests {
    @Test func tenThousandHandWrittenInsertsInOneTransactionReuseOneStatement() throws {
        let db = try makeRecordsDatabase()
        var first = ItemRecord(title: "item 0", priority: 0)
        try first.insert(db)
        let statement = try #require(db.lastStatement)
        let cached = db.cachedStatementCount
        var items = [first]
        try db.transaction { db in
            for index in 1..<10_000 {
                var item = ItemRecord(
                    listID: Int64(index % 2 + 1), title: "item \(index)", done: index % 3 == 0, priority: index % 6)
                try item.insert(db)
                items.append(item)
            }
        }
        // Not prepared again: the statement of the first insert ran every other one, and the
        // cache only gained BEGIN and COMMIT.
        #expect(db.cachedStatementCount == cached + 2)
        items.append(try ItemRecord(title: "last").inserted(db))
        #expect(db.lastStatement === statement)
        #expect(items.map(\.id) == (1...10_001).map { Int64($0) })
        #expect(try ItemRecord.all().sort(Column("id")).fetchAll(db) == items)
    }

    @Test func tenThousandEncodableInsertsShareOneLayout() throws {
        let db = try makeRecordsDatabase()
        try db.transaction { db in
            for index in 0..<10_000 {
                var note = Note(
                    body: "note \(index)", kind: index % 2 == 0 ? .text : .checklist, tags: ["\(index)"],
                    pinned: index % 5 == 0)
                try note.insert(db)
                #expect(note.id == Int64(index + 1))
            }
        }
        #expect(try Note.fetchCount(db) == 10_000)
        #expect(try Note.filter(Column("id") == 5_000).fetchOne(db)?.body == "note 4999")
        let a = Note(body: "a", kind: .text, tags: [], pinned: false)
        let b = Note(
            body: "b", kind: .checklist, tags: ["x"], pinned: true, edited: Date(), meta: .init(source: "s", version: 1)
        )
        #expect(try a.encodedValues().layout === b.encodedValues().layout)
    }

    @Test func writersOnSeveralThreadsShareTypesSafely() throws {
        // Each thread has its own connection; they share the types' plans, layouts and the
        // Encodable encoder kept for reuse, and alternate types so the last-plan slot churns.
        let failures = Lock<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            do {
                let db = try makeRecordsDatabase()
                try db.transaction { db in
                    for index in 0..<2_000 {
                        var note = Note(
                            body: "\(thread)-\(index)", kind: .text, tags: ["\(index)"], pinned: index % 2 == 0)
                        try note.insert(db)
                        var item = ItemRecord(title: "\(thread)-\(index)", priority: index % 6)
                        try item.insert(db)
                        if note.id != Int64(index + 1) || item.id != Int64(index + 1) {
                            failures.withLock { $0.append("thread \(thread): wrong ids at \(index)") }
                        }
                    }
                }
                let notes = try db.fetchAll(String.self, "SELECT body FROM notes ORDER BY id")
                let items = try db.fetchAll(String.self, "SELECT title FROM items ORDER BY id")
                let expected = (0..<2_000).map { "\(thread)-\($0)" }
                if notes != expected || items != expected {
                    failures.withLock { $0.append("thread \(thread): wrong rows") }
                }
            } catch {
                failures.withLock { $0.append("thread \(thread): \(error)") }
            }
        }
        #expect(failures.withLock { $0 } == [])
    }

    @Test func aFailureInTheMiddleOfABatchRollsTheWholeBatchBack() throws {
        let db = try makeRecordsDatabase()
        #expect(throws: ConstraintViolation.self) {
            try db.transaction { db in
                for index in 0..<1_000 {
                    try ItemRecord(title: index == 500 ? "" : "item \(index)").inserted(db)
                }
            }
        }
        #expect(try ItemRecord.fetchCount(db) == 0)
    }
}
