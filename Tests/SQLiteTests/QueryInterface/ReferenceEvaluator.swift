import Foundation

@testable import SQLite

/// SplitMix64: a tiny deterministic generator, so every differential case can be replayed
/// from its seed.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// SQLite's semantics, written again in Swift, for columns without affinity: three-valued logic,
/// the cross-type order NULL < numbers < text < blob, exact integer/real comparison, BINARY
/// collation, LIKE folding ASCII case only, GLOB case-sensitive.
enum Reference {
    /// A filter tree that can be rendered with the query builder and evaluated here.
    indirect enum Predicate: CustomStringConvertible {
        enum Op: CaseIterable { case eq, ne, lt, le, gt, ge }
        case compare(String, Op, DatabaseValue)
        case compareColumns(String, Op, String)
        case inList(String, [DatabaseValue])
        case between(String, DatabaseValue, DatabaseValue)
        case like(String, String)
        case glob(String, String)
        case contains(String, String)
        case hasPrefix(String, String)
        case and(Predicate, Predicate)
        case or(Predicate, Predicate)
        case not(Predicate)

        var expression: SQLExpression {
            switch self {
            case .compare(let column, let op, let value):
                let c = Column(column)
                switch op {
                case .eq: return c == value
                case .ne: return c != value
                case .lt: return c < value
                case .le: return c <= value
                case .gt: return c > value
                case .ge: return c >= value
                }
            case .compareColumns(let a, let op, let b):
                let (l, r) = (Column(a), Column(b))
                switch op {
                case .eq: return l == r
                case .ne: return l != r
                case .lt: return l < r
                case .le: return l <= r
                case .gt: return l > r
                case .ge: return l >= r
                }
            case .inList(let column, let values): return Column(column).in(values)
            case .between(let column, let low, let high): return Column(column).between(low, high)
            case .like(let column, let pattern): return Column(column).like(pattern)
            case .glob(let column, let pattern): return Column(column).glob(pattern)
            case .contains(let column, let text): return Column(column).contains(text)
            case .hasPrefix(let column, let text): return Column(column).hasPrefix(text)
            case .and(let a, let b): return a.expression && b.expression
            case .or(let a, let b): return a.expression || b.expression
            case .not(let a): return !a.expression
            }
        }

        var description: String { expression.description }

        func evaluate(_ row: [String: DatabaseValue]) -> Bool? {
            switch self {
            case .compare(let column, let op, let value):
                let lhs = row[column]!
                // `== nil` / `!= nil` render IS NULL / IS NOT NULL, which are never unknown.
                if value.isNull && op == .eq { return lhs.isNull }
                if value.isNull && op == .ne { return !lhs.isNull }
                return Reference.compare(lhs, op, value)
            case .compareColumns(let a, let op, let b):
                return Reference.compare(row[a]!, op, row[b]!)
            case .inList(let column, let values):
                if values.isEmpty { return false }
                let lhs = row[column]!
                if lhs.isNull { return nil }
                var unknown = false
                for value in values {
                    if value.isNull { unknown = true } else if Reference.order(lhs, value) == 0 { return true }
                }
                return unknown ? nil : false
            case .between(let column, let low, let high):
                let lhs = row[column]!
                return Reference.and(Reference.compare(lhs, .ge, low), Reference.compare(lhs, .le, high))
            case .like(let column, let pattern):
                guard case .text(let text) = row[column]! else { return nil }
                return Reference.like(Array(text.unicodeScalars)[...], Array(pattern.unicodeScalars)[...], escape: nil)
            case .glob(let column, let pattern):
                guard case .text(let text) = row[column]! else { return nil }
                return Reference.glob(Array(text.unicodeScalars)[...], Array(pattern.unicodeScalars)[...])
            case .contains(let column, let text):
                guard case .text(let value) = row[column]! else { return nil }
                let pattern = "%" + escaped(text) + "%"
                return Reference.like(
                    Array(value.unicodeScalars)[...], Array(pattern.unicodeScalars)[...], escape: "\\")
            case .hasPrefix(let column, let text):
                guard case .text(let value) = row[column]! else { return nil }
                let pattern = escaped(text) + "%"
                return Reference.like(
                    Array(value.unicodeScalars)[...], Array(pattern.unicodeScalars)[...], escape: "\\")
            case .and(let a, let b): return Reference.and(a.evaluate(row), b.evaluate(row))
            case .or(let a, let b):
                let (x, y) = (a.evaluate(row), b.evaluate(row))
                if x == true || y == true { return true }
                if x == nil || y == nil { return nil }
                return false
            case .not(let a): return a.evaluate(row).map { !$0 }
            }
        }

        private func escaped(_ text: String) -> String {
            var out = ""
            for character in text.unicodeScalars {
                if character == "%" || character == "_" || character == "\\" { out.unicodeScalars.append("\\") }
                out.unicodeScalars.append(character)
            }
            return out
        }
    }

    static func and(_ x: Bool?, _ y: Bool?) -> Bool? {
        if x == false || y == false { return false }
        if x == nil || y == nil { return nil }
        return true
    }

    static func compare(_ lhs: DatabaseValue, _ op: Predicate.Op, _ rhs: DatabaseValue) -> Bool? {
        if lhs.isNull || rhs.isNull { return nil }
        let c = order(lhs, rhs)
        switch op {
        case .eq: return c == 0
        case .ne: return c != 0
        case .lt: return c < 0
        case .le: return c <= 0
        case .gt: return c > 0
        case .ge: return c >= 0
        }
    }

    /// SQLite's order of two values: NULL < integers and reals (by value) < text < blob.
    static func order(_ lhs: DatabaseValue, _ rhs: DatabaseValue) -> Int {
        func rank(_ value: DatabaseValue) -> Int {
            switch value {
            case .null: 0
            case .integer, .real: 1
            case .text: 2
            case .blob: 3
            }
        }
        let (l, r) = (rank(lhs), rank(rhs))
        if l != r { return l < r ? -1 : 1 }
        switch (lhs, rhs) {
        case (.null, .null): return 0
        case (.integer(let a), .integer(let b)): return a < b ? -1 : (a > b ? 1 : 0)
        case (.real(let a), .real(let b)): return a < b ? -1 : (a > b ? 1 : 0)
        case (.integer(let a), .real(let b)): return compareExactly(a, b)
        case (.real(let a), .integer(let b)): return -compareExactly(b, a)
        case (.text(let a), .text(let b)): return bytes(Array(a.utf8), Array(b.utf8))
        case (.blob(let a), .blob(let b)): return bytes(a, b)
        default: fatalError("unreachable")
        }
    }

    /// An integer against a real without rounding either: converting the integer to a double
    /// would make 2^63 - 1 equal 2^63.
    static func compareExactly(_ integer: Int64, _ real: Double) -> Int {
        if real >= 9_223_372_036_854_775_808.0 { return -1 }
        if real < -9_223_372_036_854_775_808.0 { return 1 }
        let floor = real.rounded(.down)
        let whole = Int64(floor)
        if integer != whole { return integer < whole ? -1 : 1 }
        return real == floor ? 0 : -1
    }

    /// memcmp, then the shorter first: the BINARY collation, and blob order.
    static func bytes(_ a: [UInt8], _ b: [UInt8]) -> Int {
        for (x, y) in zip(a, b) where x != y { return x < y ? -1 : 1 }
        return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
    }

    static func foldASCII(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
        if scalar.value >= 65 && scalar.value <= 90 { return Unicode.Scalar(scalar.value + 32)! }
        return scalar
    }

    /// LIKE: `%` any run, `_` one character; ASCII letters match regardless of case.
    static func like(_ text: ArraySlice<Unicode.Scalar>, _ pattern: ArraySlice<Unicode.Scalar>, escape: Unicode.Scalar?)
        -> Bool
    {
        guard let first = pattern.first else { return text.isEmpty }
        let rest = pattern.dropFirst()
        if let escape, first == escape, let literal = rest.first {
            guard let head = text.first, foldASCII(head) == foldASCII(literal) else { return false }
            return like(text.dropFirst(), rest.dropFirst(), escape: escape)
        }
        if first == "%" {
            var tail = text
            while true {
                if like(tail, rest, escape: escape) { return true }
                if tail.isEmpty { return false }
                tail = tail.dropFirst()
            }
        }
        guard let head = text.first else { return false }
        if first == "_" || foldASCII(head) == foldASCII(first) {
            return like(text.dropFirst(), rest, escape: escape)
        }
        return false
    }

    /// GLOB without character classes (the generator never writes `[`): `*`, `?`, exact case.
    static func glob(_ text: ArraySlice<Unicode.Scalar>, _ pattern: ArraySlice<Unicode.Scalar>) -> Bool {
        guard let first = pattern.first else { return text.isEmpty }
        let rest = pattern.dropFirst()
        if first == "*" {
            var tail = text
            while true {
                if glob(tail, rest) { return true }
                if tail.isEmpty { return false }
                tail = tail.dropFirst()
            }
        }
        guard let head = text.first else { return false }
        if first == "?" || head == first { return glob(text.dropFirst(), rest) }
        return false
    }
}
