import CSQLite
import Foundation
import Testing

@testable import SQLite

@Suite("Binding sizes")
struct BindingSizeTests {
    @Test("text and blobs over the connection's length limit fail with SQLITE_TOOBIG, naming the size")
    func overTheLimit() throws {
        let db = try Database()
        try db.execute("CREATE TABLE t(v)")
        sqlite3_limit(db.handle, SQLITE_LIMIT_LENGTH, 1000)
        let values: [DatabaseValue] = [
            .text(String(repeating: "x", count: 1001)), .blob(Array(repeating: 7, count: 1001)),
        ]
        for value in values {
            let error = #expect(throws: SQLiteError.self) { try db.execute("INSERT INTO t VALUES (?)", [value]) }
            #expect(error?.code == SQLITE_TOOBIG)
            #expect(error?.message.contains("parameter 1 is 1001 bytes") == true)
            #expect(error?.message.contains("1000") == true)
            #expect(error?.sql == "INSERT INTO t VALUES (?)")
        }
        #expect(try db.fetchOne(Int.self, "SELECT count(*) FROM t") == 0)
        try db.execute("INSERT INTO t VALUES (?)", [.text(String(repeating: "é", count: 400))])
        #expect(try db.fetchOne(Int.self, "SELECT length(v) FROM t") == 400)
    }

    @Test("a buffer of 2 GiB or more is refused with SQLITE_TOOBIG before SQLite reads it")
    func overTwoGiB() throws {
        let db = try Database()
        let statement = try db.makeStatement("SELECT ?")
        let length = Int(Int32.max) + 1
        // Address space only: nothing is committed, and reading any of it would fault.
        let mapping = mmap(nil, length, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)
        let region = try #require(mapping == MAP_FAILED ? nil : mapping)
        defer { munmap(region, length) }
        let blobError = #expect(throws: SQLiteError.self) {
            try statement.bind(blob: UnsafeRawBufferPointer(start: region, count: length), at: 1)
        }
        #expect(blobError?.code == SQLITE_TOOBIG)
        #expect(blobError?.message.contains("\(length) bytes") == true)
        let textError = #expect(throws: SQLiteError.self) {
            try statement.bind(
                text: UnsafeBufferPointer(start: region.assumingMemoryBound(to: UInt8.self), count: length), at: 1)
        }
        #expect(textError?.code == SQLITE_TOOBIG)
    }
}
