import Foundation
import Testing

@testable import SQLite

/// The package's own trimming and search, which replace Foundation's outside FoundationEssentials,
/// checked against Foundation itself.
@Suite struct TextSearchTests {
    @Test("every Unicode scalar is trimmed exactly when Foundation's whitespacesAndNewlines trims it")
    func trimmingMatchesFoundation() {
        var differing: [String] = []
        for value in UInt32(0)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let text = "a" + String(scalar) + "b"
            let padded = String(scalar) + text + String(scalar)
            if padded.trimmingWhitespacesAndNewlines()
                != padded.trimmingCharacters(in: .whitespacesAndNewlines)
            {
                differing.append("U+" + String(value, radix: 16, uppercase: true))
            }
        }
        #expect(differing.isEmpty, "trimmed differently from Foundation: \(differing.prefix(20))")
    }

    @Test(
        "trimming keeps inner white space and empties a blank text",
        arguments: [
            "", " ", "\n\t \r\n", "SELECT 1", "  SELECT 1;\n", "\u{2028}x y\u{00A0}", "\u{FEFF} x", "é\u{301}  ",
        ])
    func trimmingExamples(_ text: String) {
        #expect(text.trimmingWhitespacesAndNewlines() == text.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    @Test(
        "the first and last occurrence are where Foundation's range(of:) finds them",
        arguments: [
            ("UNIQUE constraint failed: items.list_id, items.title", "failed: "),
            ("cannot store TEXT value in INTEGER column items.priority", " column "),
            ("a column b column c", " column "),
            ("/* unclosed", "*/"),
            ("/* a */ /* b */", "*/"),
            ("aaaa", "aa"),
            ("naïve café */ done", "*/"),
            ("", "x"),
            ("x", "xy"),
        ])
    func searchMatchesFoundation(_ text: String, _ needle: String) {
        let forward = text.utf8Range(of: needle)
        #expect(forward == text.range(of: needle))
        let backward = text.utf8Range(of: needle, backwards: true)
        #expect(backward == text.range(of: needle, options: .backwards))
        let substring = text.dropFirst(0)
        #expect(substring.utf8Range(of: needle) == substring.range(of: needle))
    }

    @Test("a substring is searched from its own start, with indices of its base string")
    func searchInASubstring() throws {
        let text = "*/ a */ b"
        let rest = text.dropFirst(2)
        let found = try #require(rest.utf8Range(of: "*/"))
        #expect(text[found.upperBound...] == " b")
        #expect("".utf8Range(of: "") == nil)
    }
}
