import Testing

@testable import SQLCore

/// SQLite compares text and names by their bytes, and folds the case of ASCII letters only
/// when it matches names.
@Suite("Text and names as SQLite compares them")
struct SQLiteTextTests {
    private let composed = "\u{E9}"
    private let decomposed = "e\u{301}"

    @Test("text in two Unicode normalizations is other text")
    func bytes() {
        #expect(composed == decomposed)
        #expect(!composed.hasSameBytes(as: decomposed))
        #expect(composed.hasSameBytes(as: "\u{E9}"))
        #expect("".hasSameBytes(as: ""))
        #expect(ExactString(composed) != ExactString(decomposed))
        #expect(Set([ExactString(composed), ExactString(decomposed), ExactString("\u{E9}")]).count == 2)
        #expect(!DatabaseValue.text(composed).isIdentical(to: .text(decomposed)))
        #expect(DatabaseValue.real(.nan).isIdentical(to: .real(.nan)))
        #expect(!DatabaseValue.integer(1).isIdentical(to: .real(1)))
        #expect(!DatabaseValue.real(-0.0).isIdentical(to: .real(0)))
        #expect(DatabaseValue.real(0.5).isIdentical(to: .real(0.5)))
        var first = Hasher()
        DatabaseValue.real(.nan).hashIdentity(into: &first)
        var second = Hasher()
        DatabaseValue.real(-.nan).hashIdentity(into: &second)
        #expect(first.finalize() == second.finalize())
    }

    @Test("names fold ASCII letters only")
    func folding() {
        #expect("ÄRGER".sqliteFolded == "Ärger")
        #expect("Items".sqliteFolded == "items")
        #expect("Ä".sqliteFolded == "Ä")
        #expect("ÄRGER".sqliteNameMatches("Ärger"))
        #expect(!"Ä".sqliteNameMatches("ä"))
        #expect(!composed.sqliteNameMatches(decomposed))
        #expect("Title".sqliteNameMatches("tITLE"))
        // `@` and `` ` `` differ from each other by the same bit as `A` and `a`, but are not letters.
        #expect(!"@".sqliteNameMatches("`"))
        #expect(!"[".sqliteNameMatches("{"))
    }

    @Test("a row finds a column by its exact name first, then ignoring ASCII case only")
    func rowColumns() {
        let row = Row(columnNames: ["Ä", "ä", "Title", composed], values: [1, 2, 3, 4])
        #expect(row.index(ofColumn: "ä") == 1)
        #expect(row.index(ofColumn: "Ä") == 0)
        #expect(row.index(ofColumn: "TITLE") == 2)
        #expect(row.index(ofColumn: decomposed) == nil)
        #expect(Row(columnNames: ["Ä"], values: [1]).index(ofColumn: "ä") == nil)
    }
}
