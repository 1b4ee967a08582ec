import SQLCore
import Testing

@Suite("DatabaseValue descriptions")
struct DatabaseValueDescriptionTests {
    @Test("describing a decoding error for a large blob shows its size and only the start of it")
    func largeBlob() {
        let size = 50 << 20
        let error = RowDecodingError(
            column: "data", index: 0, expectedType: "Int",
            reason: .typeMismatch(found: .blob(Array(repeating: 0xAB, count: size))))
        let text = error.description
        #expect(text.utf8.count < 200)
        #expect(text.contains("blob of \(size) bytes"))
        #expect(text.contains("X'ABABAB"))
        #expect(text.hasSuffix("..."))
    }

    @Test("describing a decoding error for a large text shows its size and only the start of it")
    func largeText() {
        let size = 50 << 20
        let error = RowDecodingError(
            column: "note", index: 0, expectedType: "Int",
            reason: .typeMismatch(found: .text(String(repeating: "a'", count: size / 2))))
        let text = error.description
        #expect(text.utf8.count < 200)
        #expect(text.contains("text of \(size) bytes"))
        #expect(text.contains("'a''a''"))
        #expect(text.hasSuffix("..."))
    }

    @Test("short values are described in full")
    func shortValues() {
        let error = RowDecodingError(
            column: "data", index: 0, expectedType: "Int", reason: .typeMismatch(found: .blob([0, 1, 0xFE])))
        #expect(error.description.hasSuffix("found blob X'0001FE'"))
    }
}
