import Foundation
import Testing

@testable import SQLCore

@Suite("Dates as SQLite text")
struct SQLiteDateFormatTests {
    /// Dates the four-digit text cannot hold, and the non-finite ones: each once trapped or was
    /// written as text that read back as another date, or not at all.
    @Test(
        "a date outside the years 0000 through 9999 throws an error naming it and the range",
        arguments: [
            Double.infinity, -Double.infinity, Double.nan, 1e14, -1e14, 253_402_300_800, 1e12, -1e11,
            253_402_300_799.9996, -62_167_219_200.6, Double.greatestFiniteMagnitude, 1e300,
        ])
    func outOfRange(interval: Double) throws {
        let date = Date(timeIntervalSince1970: interval)
        let error = try #require(throws: ValueConversionError.self) { try DatabaseValue(date) }
        #expect(error.value == "Date(timeIntervalSince1970: \(interval))")
        #expect(error.description.contains("0000 through 9999"))
        #expect(throws: ValueConversionError.self) { try Optional(date).databaseValue }
    }

    @Test("the first and last instants of the range, and rounding at its end")
    func edges() throws {
        #expect(try DatabaseValue(Date(timeIntervalSince1970: -62_167_219_200)) == .text("0000-01-01 00:00:00.000"))
        #expect(
            try DatabaseValue(Date(timeIntervalSince1970: -62_167_219_200.0004)) == .text("0000-01-01 00:00:00.000"))
        #expect(try DatabaseValue(Date(timeIntervalSince1970: 253_402_300_799.999)) == .text("9999-12-31 23:59:59.999"))
        #expect(
            try DatabaseValue(Date(timeIntervalSince1970: 253_402_300_799.9994)) == .text("9999-12-31 23:59:59.999"))
        #expect(try DatabaseValue(Date(timeIntervalSince1970: -1e10)) == .text("1653-02-10 06:13:20.000"))
        for text in ["0000-01-01 00:00:00.000", "9999-12-31 23:59:59.999", "1653-02-10 06:13:20.000"] {
            let date = try #require(Date(databaseValue: .text(text)))
            #expect(try DatabaseValue(date) == .text(text))
        }
    }

    @Test("random dates across the whole range read back as the same date, and their texts sort as time")
    func randomRoundTrip() throws {
        var random = SystemRandomNumberGenerator()
        let seed = UInt64.random(in: 0...UInt64.max, using: &random)
        var generator = SplitMix(seed: seed)
        var previous: (millis: Int64, text: String)?
        for _ in 0..<20_000 {
            let millis = Int64.random(
                in: SQLiteDateFormat.earliestSecond * 1000...SQLiteDateFormat.latestSecond * 1000 + 999,
                using: &generator)
            let date = Date(timeIntervalSince1970: Double(millis) / 1000)
            guard case .text(let text) = try DatabaseValue(date) else {
                Issue.record("seed \(seed): \(millis) ms is not stored as text")
                return
            }
            let back = try #require(Date(databaseValue: .text(text)), "seed \(seed): \(text)")
            #expect(
                abs(back.timeIntervalSince1970 - date.timeIntervalSince1970) < 0.0005,
                "seed \(seed): \(millis) ms, \(text)")
            #expect(try DatabaseValue(back) == .text(text), "seed \(seed): \(millis) ms")
            if let previous {
                #expect((previous.millis < millis) == (previous.text < text), "seed \(seed): \(previous.text), \(text)")
            }
            previous = (millis, text)
        }
    }
}

/// SplitMix64: a seed reproduces a run.
private struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
