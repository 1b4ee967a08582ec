import Foundation
import SQLCore
import Testing

@Suite("DatabaseValue")
struct DatabaseValueTests {
    @Test("literals build the expected storage classes")
    func literals() {
        let values: [DatabaseValue] = [nil, 1, 2.5, "text", true, false]
        #expect(values == [.null, .integer(1), .real(2.5), .text("text"), .integer(1), .integer(0)])
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
        let date = try #require(Date(databaseValue: .text(text)))
        #expect(abs(date.timeIntervalSince1970 - seconds) < 0.0005)
    }

    @Test("numbers decode as Unix time; garbage does not decode")
    func dateOthers() {
        #expect(Date(databaseValue: .integer(86400)) == Date(timeIntervalSince1970: 86400))
        #expect(Date(databaseValue: .real(1.5)) == Date(timeIntervalSince1970: 1.5))
        #expect(Date(databaseValue: .text("yesterday")) == nil)
        #expect(Date(databaseValue: .text("2026-13-01")) == nil)
        #expect(Date(databaseValue: .null) == nil)
    }

    @Test("conversions refuse values of the wrong type")
    func strictConversions() {
        #expect(Int(databaseValue: .text("12")) == nil)
        #expect(Int(databaseValue: .real(1.5)) == nil)
        #expect(Int(databaseValue: .real(2)) == 2)
        #expect(Int32(databaseValue: .integer(Int64(Int32.max) + 1)) == nil)
        #expect(String(databaseValue: .integer(1)) == nil)
        #expect(Double(databaseValue: .integer(2)) == 2)
        #expect(Bool(databaseValue: .text("true")) == nil)
    }

    @Test("raw-representable enums convert through their raw value")
    func rawRepresentable() throws {
        enum Color: String, DatabaseValueConvertible { case red, green }
        #expect(try DatabaseValue(Color.green) == .text("green"))
        #expect(Color(databaseValue: .text("red")) == .red)
        #expect(Color(databaseValue: .text("blue")) == nil)
    }

    @Test("description renders values like SQL literals")
    func description() {
        #expect(DatabaseValue.text("it's").description == "'it''s'")
        #expect(DatabaseValue.blob([0xAB, 0x01]).description == "X'AB01'")
        #expect(DatabaseValue.null.description == "NULL")
    }

    @Test("text is equal and hashed by its bytes, as SQLite's BINARY compares it")
    func textComparesByBytes() {
        let composed = DatabaseValue.text("\u{E9}")
        let decomposed = DatabaseValue.text("e\u{301}")
        // Swift's String finds them equal; SQLite's `SELECT 'é' = 'e' || char(769)` is 0.
        #expect("\u{E9}" == "e\u{301}")
        #expect(composed != decomposed)
        #expect(Set([composed, decomposed, .text("\u{E9}")]).count == 2)
        #expect(composed == .text(String(decoding: [0xC3, 0xA9], as: UTF8.self)))
        #expect(DatabaseValue.integer(5) != .real(5.0))
        #expect(DatabaseValue.real(0.0) == .real(-0.0))
        #expect(!DatabaseValue.real(0.0).isIdentical(to: .real(-0.0)))
    }
}
