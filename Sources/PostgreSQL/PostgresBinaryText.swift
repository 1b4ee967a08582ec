import PostgresNIO
import SQLCore

/// PostgreSQL's text output for the binary values of types SQLite has no counterpart for, so that
/// a row read here holds what `psql` shows: `2024-03-01 12:30:00.5`, not a count of microseconds.
enum PostgresBinaryText {
    /// Days from 1970-01-01 to 2000-01-01, PostgreSQL's epoch for dates and timestamps.
    private static let epochDays: Int64 = 10_957

    /// `yyyy-MM-dd`, with ` BC` for years before 1, or `infinity` / `-infinity`.
    static func date(days: Int64) -> String {
        if days == Int64(Int32.max) { return "infinity" }
        if days == Int64(Int32.min) { return "-infinity" }
        let (year, month, day) = CivilCalendar.date(daysSince1970: Int(days + epochDays))
        let era = year <= 0 ? " BC" : ""
        return "\(pad(Int64(year <= 0 ? 1 - year : year), 4))-\(pad(Int64(month), 2))-\(pad(Int64(day), 2))\(era)"
    }

    /// `HH:mm:ss`, with the fraction PostgreSQL prints: up to six digits, trailing zeros dropped.
    static func time(microseconds: Int64) -> String {
        let seconds = microseconds / 1_000_000
        var text = "\(pad(seconds / 3600, 2)):\(pad(seconds / 60 % 60, 2)):\(pad(seconds % 60, 2))"
        var fraction = microseconds % 1_000_000
        if fraction != 0 {
            var digits = 6
            while fraction % 10 == 0 {
                fraction /= 10
                digits -= 1
            }
            text += "." + pad(fraction, digits)
        }
        return text
    }

    /// A date and a time, with `+00` for `timestamptz` (sessions run in UTC).
    static func timestamp(microseconds: Int64, utcOffset: Bool = false) -> String {
        if microseconds == .max { return "infinity" }
        if microseconds == .min { return "-infinity" }
        let day: Int64 = 86_400_000_000
        let days = microseconds >= 0 ? microseconds / day : (microseconds - day + 1) / day
        var text = date(days: days)
        let era = text.hasSuffix(" BC")
        if era { text.removeLast(3) }
        text += " " + time(microseconds: microseconds - days * day)
        if utcOffset { text += "+00" }
        if era { text += " BC" }
        return text
    }

    /// Lowercase hex in groups of 8-4-4-4-12.
    static func uuid(_ bytes: inout ByteBuffer) -> String? {
        guard let raw = bytes.readBytes(length: 16) else { return nil }
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for (index, byte) in raw.enumerated() {
            if [4, 6, 8, 10].contains(index) { text.append(UInt8(ascii: "-")) }
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The decimal text of a binary `numeric`: base-10000 digits with a weight (the power of
    /// 10000 of the first), a sign and a display scale.
    static func numeric(_ bytes: inout ByteBuffer) -> String? {
        guard let count = bytes.readInteger(as: Int16.self), let weight = bytes.readInteger(as: Int16.self),
            let sign = bytes.readInteger(as: UInt16.self), let scale = bytes.readInteger(as: UInt16.self)
        else { return nil }
        switch sign {
        case 0xC000: return "NaN"
        case 0xD000: return "Infinity"
        case 0xF000: return "-Infinity"
        default: break
        }
        var groups: [Int16] = []
        for _ in 0..<max(0, Int(count)) {
            guard let group = bytes.readInteger(as: Int16.self) else { return nil }
            groups.append(group)
        }
        func group(_ index: Int) -> Int { index >= 0 && index < groups.count ? Int(groups[index]) : 0 }
        var text = sign == 0x4000 ? "-" : ""
        // The integer part: groups 0...weight.
        if weight < 0 {
            text += "0"
        } else {
            text += String(group(0))
            if weight > 0 { for index in 1...Int(weight) { text += pad(Int64(group(index)), 4) } }
        }
        if scale > 0 {
            var fraction = ""
            var index = Int(weight) + 1
            while fraction.count < Int(scale) {
                fraction += pad(Int64(group(index)), 4)
                index += 1
            }
            text += "." + fraction.prefix(Int(scale))
        }
        return text
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}
