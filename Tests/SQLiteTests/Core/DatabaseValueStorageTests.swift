import Foundation
import Testing

@testable import SQLite

@Suite("DatabaseValue in a database")
struct DatabaseValueStorageTests {
    @Test("Swift values round-trip through a real database column")
    func roundTrips() throws {
        let db = try Database()
        try db.execute("CREATE TABLE t(v)")
        func roundTrip<T: DatabaseValueConvertible & Equatable>(_ value: T) throws -> T? {
            try db.execute("DELETE FROM t")
            try db.execute("INSERT INTO t VALUES (?)", [try DatabaseValue(value)])
            return try db.fetchOne("SELECT v FROM t").map { try $0[0] as T }
        }
        #expect(try roundTrip(true) == true)
        #expect(try roundTrip(Int.max) == Int.max)
        #expect(try roundTrip(Int64.min) == Int64.min)
        #expect(try roundTrip(3.25) == 3.25)
        #expect(try roundTrip("héllo 🌍 'quoted'") == "héllo 🌍 'quoted'")
        #expect(try roundTrip("") == "")
        #expect(try roundTrip([UInt8]([0, 1, 255])) == [0, 1, 255])
        #expect(try roundTrip(Data([9, 8, 7])) == Data([9, 8, 7]))
        let uuid = UUID()
        #expect(try roundTrip(uuid) == uuid)
        #expect(try roundTrip(Optional<Int>.none) == .some(nil))
        #expect(try roundTrip(Optional<Int>.some(5)) == .some(5))
        let date = Date(timeIntervalSince1970: 1_767_323_045.678)
        #expect(try roundTrip(date) == date)
    }

    @Test("a date the text form cannot hold throws from every write path and changes nothing")
    func unstorableDates() throws {
        let db = try makeRecordsDatabase()
        var kept = ItemRecord(id: 1, title: "kept")
        try kept.insert(db)
        for interval in [Double.infinity, .nan, 1e14, -1e14, 253_402_300_800, -1e11] {
            let date = Date(timeIntervalSince1970: interval)
            #expect(throws: ValueConversionError.self) {
                try db.execute("INSERT INTO items(title, due) VALUES ('x', ?)", [try DatabaseValue(date)])
            }
            var item = ItemRecord(title: "new", due: date)
            #expect(throws: ValueConversionError.self) { try item.insert(db) }
            #expect(throws: ValueConversionError.self) { try ItemRecord(id: 1, title: "kept", due: date).update(db) }
            var note = Note(body: "b", kind: .text, tags: [], pinned: false, edited: date)
            #expect(throws: ValueConversionError.self) { try note.insert(db) }
            #expect(throws: ValueConversionError.self) {
                try Table("items").all().updateAll(db, Column("due").set(to: date))
            }
            #expect(throws: ValueConversionError.self) { try Table("items").filter(Column("due") < date).fetchAll(db) }
            #expect(throws: ValueConversionError.self) {
                try Table("items").filter(Column("due").between(Date(), date)).fetchCount(db)
            }
            #expect(throws: ValueConversionError.self) {
                try Table("items").filter(Column("due") == date).deleteAll(db)
            }
        }
        #expect(
            try db.fetchAll("SELECT id, title, due FROM items").map(\.values) == [[.integer(1), .text("kept"), .null]])
        #expect(try db.fetchOne(Int.self, "SELECT count(*) FROM notes") == 0)
    }

    @Test("an empty string binds as text, not NULL")
    func emptyString() throws {
        let db = try Database()
        #expect(try db.fetchOne(String.self, "SELECT typeof(?)", [""]) == "text")
    }

    @Test("dates are stored as SQLite's UTC text and work with its date functions")
    func dateStorage() throws {
        let db = try Database()
        let date = Date(timeIntervalSince1970: 1_767_323_045.678)  // 2026-01-02 03:04:05.678 UTC
        #expect(try DatabaseValue(date) == .text("2026-01-02 03:04:05.678"))
        #expect(try db.fetchOne(String.self, "SELECT date(?)", [try DatabaseValue(date)]) == "2026-01-02")
        let later = Date(timeIntervalSince1970: 1_767_323_046)
        #expect(
            try db.fetchOne(Bool.self, "SELECT ? < ?", [try DatabaseValue(date), try DatabaseValue(later)]) == true)
    }

    @Test(
        "a text literal doubles every quote, even one followed by a combining mark, and reads back exactly",
        arguments: [
            "'\u{301}", "a'\u{301}b", "'\u{301}'\u{308}", "it's", "''", "\u{301}'", "'\u{20DD}x", "e'\u{301}\u{323}",
            "🇫🇷'🇫🇷", "'\u{200D}'", "",
        ])
    func combiningMarks(text: String) throws {
        let db = try Database()
        let literal = DatabaseValue.text(text).description
        let back = try db.fetchOne(String.self, "SELECT " + literal)
        #expect(back.map { Array($0.utf8) } == Array(text.utf8))
    }
}
