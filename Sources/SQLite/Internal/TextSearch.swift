// Foundation's `trimmingCharacters(in:)` and `range(of:)` are not in FoundationEssentials, and
// importing the rest of Foundation links its Unicode data into every program that uses the
// package. These do the same for what the package needs of them.

extension String {
    /// Where `needle` first occurs (or last, when `backwards`), compared byte for byte in UTF-8,
    /// as SQLite compares SQL text; nil when it does not occur or is empty.
    package func utf8Range(of needle: String, backwards: Bool = false) -> Range<String.Index>? {
        var text = self
        let offsets = text.withUTF8 { utf8Offsets(of: needle, in: $0, backwards: backwards) }
        return offsets.map {
            utf8.index(startIndex, offsetBy: $0.lowerBound)..<utf8.index(startIndex, offsetBy: $0.upperBound)
        }
    }
}

extension Substring {
    /// Where `needle` first occurs (or last, when `backwards`), compared byte for byte in UTF-8,
    /// as SQLite compares SQL text; nil when it does not occur or is empty.
    package func utf8Range(of needle: String, backwards: Bool = false) -> Range<String.Index>? {
        var text = self
        let offsets = text.withUTF8 { utf8Offsets(of: needle, in: $0, backwards: backwards) }
        return offsets.map {
            utf8.index(startIndex, offsetBy: $0.lowerBound)..<utf8.index(startIndex, offsetBy: $0.upperBound)
        }
    }
}

/// The search itself, on bytes: written out rather than generic, which costs tens of thousands
/// of instructions a call when not specialized.
private func utf8Offsets(of needle: String, in text: UnsafeBufferPointer<UInt8>, backwards: Bool) -> Range<Int>? {
    var needle = needle
    return needle.withUTF8 { target -> Range<Int>? in
        guard !target.isEmpty, target.count <= text.count else { return nil }
        var found: Range<Int>?
        for start in 0...(text.count - target.count) {
            var index = 0
            while index < target.count && text[start + index] == target[index] { index += 1 }
            if index == target.count {
                found = start..<(start + target.count)
                if !backwards { return found }
            }
        }
        return found
    }
}

extension String {
    /// The text without white space or line breaks at either end, as
    /// `trimmingCharacters(in: .whitespacesAndNewlines)` trims it: the scalars with Unicode's
    /// White_Space property, and U+200B ZERO WIDTH SPACE, which Foundation counts as white space too.
    package func trimmingWhitespacesAndNewlines() -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !Self.isWhitespaceOrNewline($0) }),
            let last = scalars.lastIndex(where: { !Self.isWhitespaceOrNewline($0) })
        else { return "" }
        return String(scalars[first...last])
    }

    private static func isWhitespaceOrNewline(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.isWhitespace || scalar == "\u{200B}"
    }
}
