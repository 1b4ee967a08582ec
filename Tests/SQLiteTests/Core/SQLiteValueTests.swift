import Foundation
import Testing

@testable import SQLite

@Suite("SQLiteValue")
struct SQLiteValueTests {
    @Test("literals build the expected storage classes")
    func literals() {
        let values: [SQLiteValue] = [nil, 1, 2.5, "text", true, false]
        #expect(values == [.null, .integer(1), .real(2.5), .text("text"), .integer(1), .integer(0)])
    }

    @Test("Swift values round-trip through a real database column")
    func roundTrips() throws {
        let db = try Database()
        try db.execute("CREATE TABLE t(v)")
        func roundTrip<T: SQLiteValueConvertible & Equatable>(_ value: T) throws -> T? {
            try db.execute("DELETE FROM t")
            try db.execute("INSERT INTO t VALUES (?)", [SQLiteValue(value)])
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

    @Test("an empty string binds as text, not NULL")
    func emptyString() throws {
        let db = try Database()
        #expect(try db.fetchOne(String.self, "SELECT typeof(?)", [""]) == "text")
    }

    @Test("dates are stored as SQLite's UTC text and work with its date functions")
    func dateStorage() throws {
        let db = try Database()
        let date = Date(timeIntervalSince1970: 1_767_323_045.678)  // 2026-01-02 03:04:05.678 UTC
        #expect(SQLiteValue(date) == .text("2026-01-02 03:04:05.678"))
        #expect(try db.fetchOne(String.self, "SELECT date(?)", [SQLiteValue(date)]) == "2026-01-02")
        let later = Date(timeIntervalSince1970: 1_767_323_046)
        #expect(try db.fetchOne(Bool.self, "SELECT ? < ?", [SQLiteValue(date), SQLiteValue(later)]) == true)
    }

    @Test(
        "dates decode from ISO-8601, bare dates and Unix time",
        arguments: [
            ("2026-01-02 03:04:05.678", 1_767_323_045.678),
            ("2026-01-02T03:04:05.678Z", 1_767_323_045.678),
            ("2026-01-02T03:04:05Z", 1_767_323_045),
            ("2026-01-02T05:04:05+02:00", 1_767_323_045),
            ("2026-01-02 03:04", 1_767_323_040),
            ("2026-01-02", 1_767_312_000),
        ])
    func dateParsing(text: String, seconds: Double) throws {
        let date = try #require(Date(sqliteValue: .text(text)))
        #expect(abs(date.timeIntervalSince1970 - seconds) < 0.0005)
    }

    @Test("numbers decode as Unix time; garbage does not decode")
    func dateOthers() {
        #expect(Date(sqliteValue: .integer(86400)) == Date(timeIntervalSince1970: 86400))
        #expect(Date(sqliteValue: .real(1.5)) == Date(timeIntervalSince1970: 1.5))
        #expect(Date(sqliteValue: .text("yesterday")) == nil)
        #expect(Date(sqliteValue: .text("2026-13-01")) == nil)
        #expect(Date(sqliteValue: .null) == nil)
    }

    @Test("conversions refuse values of the wrong type")
    func strictConversions() {
        #expect(Int(sqliteValue: .text("12")) == nil)
        #expect(Int(sqliteValue: .real(1.5)) == nil)
        #expect(Int(sqliteValue: .real(2)) == 2)
        #expect(Int32(sqliteValue: .integer(Int64(Int32.max) + 1)) == nil)
        #expect(String(sqliteValue: .integer(1)) == nil)
        #expect(Double(sqliteValue: .integer(2)) == 2)
        #expect(Bool(sqliteValue: .text("true")) == nil)
    }

    @Test("raw-representable enums convert through their raw value")
    func rawRepresentable() throws {
        enum Color: String, SQLiteValueConvertible { case red, green }
        #expect(SQLiteValue(Color.green) == .text("green"))
        #expect(Color(sqliteValue: .text("red")) == .red)
        #expect(Color(sqliteValue: .text("blue")) == nil)
    }

    @Test("description renders values like SQL literals")
    func description() {
        #expect(SQLiteValue.text("it's").description == "'it''s'")
        #expect(SQLiteValue.blob([0xAB, 0x01]).description == "X'AB01'")
        #expect(SQLiteValue.null.description == "NULL")
    }
}
