import Testing

@testable import SQLite

/// `DatabaseValue.numericAffinity(of:)` must agree with what SQLite itself stores in a NUMERIC column.
struct NumericAffinityTests {
    private static let samples = [
        "", " ", "0", "-0", "+7", " 12 ", "\t12\n", "1.5", ".5", "5.", ".", "-", "+", "1e5", "1E+5", "1e-5", "1e",
        "1e+", "e5", ".e5", "1.5e3", "0x1A", "0X1a", "nan", "NaN", "inf", "-inf", "Infinity", "1,5", "1_000", "12abc",
        "abc", "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
        "1e999", "-1e999", "00012", "1 2", "\u{a0}12", "١٢",
    ]

    @Test("Agrees with SQLite on hand-picked texts")
    func handPicked() throws {
        let db = try Database()
        for text in Self.samples { try expectAgreement(text, db) }
    }

    @Test("Agrees with SQLite on random texts over the characters of numbers")
    func random() throws {
        let db = try Database()
        var generator = SplitMix64(seed: 0x5EED_0001)
        let alphabet = Array(" \t+-.eE0123456789x")
        for _ in 0..<20000 {
            let length = Int(generator.next() % 12 as UInt64)
            let text = String((0..<length).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] })
            try expectAgreement(text, db)
        }
    }

    private func expectAgreement(_ text: String, _ db: Database) throws {
        try db.execute("CREATE TEMP TABLE IF NOT EXISTS affinity(n NUMERIC)")
        try db.execute("DELETE FROM affinity")
        try db.execute("INSERT INTO affinity(n) VALUES (?)", [DatabaseValue.text(text)])
        let value = try #require(try db.fetchOne(DatabaseValue.self, "SELECT n FROM affinity"))
        let expected: DatabaseValue? = if case .text = value { nil } else { value }
        let actual = DatabaseValue.numericAffinity(of: text)
        switch (expected, actual) {
        case (.real(let a), .real(let b)):
            // SQLite's own decimal conversion may differ from a correctly rounded one in the last bit.
            #expect(a == b || abs(a - b) <= abs(a) * 1e-15, "\(text.debugDescription)")
        default:
            #expect(expected == actual, "\(text.debugDescription)")
        }
    }
}
