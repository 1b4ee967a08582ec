#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The text form of dates: `yyyy-MM-dd HH:mm:ss.SSS` in UTC, parsed and printed by hand because
/// `DateFormatter` is slow and locale-sensitive, and this runs once per date column per row.
package enum SQLiteDateFormat {
    /// 0000-01-01 00:00:00.000 UTC, the first instant the text form can hold.
    package static let earliestSecond: Int64 = -62_167_219_200
    /// 9999-12-31 23:59:59 UTC: the text form has four digits for the year.
    package static let latestSecond: Int64 = 253_402_300_799

    /// The text of `date`, rounded to the millisecond; throws for a date outside the years
    /// 0000 through 9999 (after rounding) or not finite, which the text form cannot hold.
    package static func string(from date: Date) throws(ValueConversionError) -> String {
        let interval = date.timeIntervalSince1970
        // Checked before any conversion to an integer, which would trap for these.
        guard interval.isFinite, interval >= Double(earliestSecond) - 1, interval <= Double(latestSecond) + 1 else {
            throw outOfRange(date)
        }
        var seconds = Int(interval.rounded(.down))
        var millis = Int(((interval - Double(seconds)) * 1000).rounded())
        if millis == 1000 {
            seconds += 1
            millis = 0
        }
        guard seconds >= earliestSecond, seconds <= latestSecond else { throw outOfRange(date) }
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        var out = [UInt8]()
        out.reserveCapacity(23)
        func append(_ value: Int, digits: Int) {
            var divisor = 1
            for _ in 1..<digits { divisor *= 10 }
            var rest = value
            while divisor > 0 {
                out.append(UInt8(ascii: "0") + UInt8(rest / divisor))
                rest %= divisor
                divisor /= 10
            }
        }
        append(Int(parts.tm_year) + 1900, digits: 4)
        out.append(UInt8(ascii: "-"))
        append(Int(parts.tm_mon) + 1, digits: 2)
        out.append(UInt8(ascii: "-"))
        append(Int(parts.tm_mday), digits: 2)
        out.append(UInt8(ascii: " "))
        append(Int(parts.tm_hour), digits: 2)
        out.append(UInt8(ascii: ":"))
        append(Int(parts.tm_min), digits: 2)
        out.append(UInt8(ascii: ":"))
        append(Int(parts.tm_sec), digits: 2)
        out.append(UInt8(ascii: "."))
        append(millis, digits: 3)
        return String(decoding: out, as: UTF8.self)
    }

    private static func outOfRange(_ date: Date) -> ValueConversionError {
        ValueConversionError(
            value: "Date(timeIntervalSince1970: \(date.timeIntervalSince1970))",
            reason: "dates are stored as text in UTC, in the years 0000 through 9999: timeIntervalSince1970 "
                + "from \(earliestSecond) to \(latestSecond).999 (rounded to the millisecond)")
    }

    /// Parses `yyyy-MM-dd`, optionally followed by ` ` or `T`, `HH:mm`, `:ss`, `.fraction`,
    /// and `Z` or `±HH:MM`. Returns nil for anything else.
    package static func date(from text: String) -> Date? {
        var text = text
        return text.withUTF8 { bytes -> Date? in
            var index = 0
            func number(_ count: Int) -> Int? {
                guard index + count <= bytes.count else { return nil }
                var value = 0
                for offset in 0..<count {
                    let byte = bytes[index + offset]
                    guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                    value = value * 10 + Int(byte - UInt8(ascii: "0"))
                }
                index += count
                return value
            }
            func expect(_ ascii: UInt8) -> Bool {
                guard index < bytes.count, bytes[index] == ascii else { return false }
                index += 1
                return true
            }
            guard let year = number(4), expect(UInt8(ascii: "-")),
                let month = number(2), (1...12).contains(month), expect(UInt8(ascii: "-")),
                let day = number(2), (1...31).contains(day)
            else { return nil }
            var hour = 0
            var minute = 0
            var second = 0
            var fraction = 0.0
            var offsetSeconds = 0
            if index < bytes.count {
                guard expect(UInt8(ascii: " ")) || expect(UInt8(ascii: "T")) else { return nil }
                guard let h = number(2), h < 24, expect(UInt8(ascii: ":")), let m = number(2), m < 60 else {
                    return nil
                }
                hour = h
                minute = m
                if expect(UInt8(ascii: ":")) {
                    guard let s = number(2), s < 61 else { return nil }
                    second = s
                    if expect(UInt8(ascii: ".")) {
                        var numerator = 0
                        var denominator = 1
                        while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9")
                        {
                            // Digits past nanoseconds cannot change a Double date; skip them.
                            if denominator < 1_000_000_000 {
                                numerator = numerator * 10 + Int(bytes[index] - UInt8(ascii: "0"))
                                denominator *= 10
                            }
                            index += 1
                        }
                        guard denominator > 1 else { return nil }
                        fraction = Double(numerator) / Double(denominator)
                    }
                }
                if expect(UInt8(ascii: "Z")) {
                    offsetSeconds = 0
                } else if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                    let sign = bytes[index] == UInt8(ascii: "-") ? -1 : 1
                    index += 1
                    guard let oh = number(2) else { return nil }
                    _ = expect(UInt8(ascii: ":"))
                    let om = number(2) ?? 0
                    offsetSeconds = sign * (oh * 3600 + om * 60)
                }
                guard index == bytes.count else { return nil }
            }
            var parts = tm()
            parts.tm_year = Int32(year - 1900)
            parts.tm_mon = Int32(month - 1)
            parts.tm_mday = Int32(day)
            parts.tm_hour = Int32(hour)
            parts.tm_min = Int32(minute)
            parts.tm_sec = Int32(second)
            let seconds = timegm(&parts)
            return Date(timeIntervalSince1970: TimeInterval(seconds - offsetSeconds) + fraction)
        }
    }
}
