// How SQLite tells text and names apart, for every key and lookup that must agree with it.
//
// SQLite compares text (and SQL, and names) by their bytes, where Swift's `String` equality is
// canonical equivalence: `"\u{E9}"` and `"e\u{301}"` are one Swift string but two SQLite values,
// two tables, two SQL texts. And SQLite matches identifiers ignoring the case of ASCII letters
// only, where `lowercased()` folds every letter: `"Ä"` and `"ä"` are two columns.

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

extension String {
    /// True when both strings have the same UTF-8 bytes, as SQLite compares them.
    @inlinable
    package func hasSameBytes(as other: String) -> Bool {
        let count = utf8.count
        guard count == other.utf8.count else { return false }
        // memcmp: this compares SQL texts on every cached statement's lookup, where a loop over
        // the bytes cost as much as SQLite's own step.
        let contiguous = utf8.withContiguousStorageIfAvailable { mine in
            other.utf8.withContiguousStorageIfAvailable { theirs in
                count == 0 || memcmp(mine.baseAddress!, theirs.baseAddress!, count) == 0
            }
        }
        return (contiguous ?? nil) ?? utf8.elementsEqual(other.utf8)
    }

    /// Feeds the UTF-8 bytes to `hasher`: equal for strings that ``hasSameBytes(as:)``.
    @inlinable
    package func hashBytes(into hasher: inout Hasher) {
        let hashed: Void? = utf8.withContiguousStorageIfAvailable { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        if hashed == nil {
            for byte in utf8 { hasher.combine(byte) }
        }
        // Keeps the boundary between two strings hashed in a row.
        hasher.combine(utf8.count)
    }

    /// The name as SQLite matches identifiers (tables, columns, savepoints): ASCII letters
    /// lowercased, every other byte kept. Names SQLite reads as one fold to the same bytes, and
    /// the folded name still names the same table or column.
    package var sqliteFolded: String {
        guard utf8.contains(where: { $0 &- UInt8(ascii: "A") < 26 }) else { return self }
        return String(decoding: utf8.map { $0 &- UInt8(ascii: "A") < 26 ? $0 + 32 : $0 }, as: UTF8.self)
    }

    /// True when SQLite reads both names as the same identifier.
    package func sqliteNameMatches(_ other: String) -> Bool {
        utf8.elementsEqual(other.utf8) { lhs, rhs in
            lhs == rhs || (lhs | 32 == rhs | 32 && (lhs | 32) &- UInt8(ascii: "a") < 26)
        }
    }
}

/// A string as a key compared by its UTF-8 bytes, as SQLite compares text: for caches keyed by
/// SQL or by names, which canonical equivalence would merge.
package struct ExactString: Hashable, Sendable {
    package let string: String

    @inlinable
    package init(_ string: String) {
        self.string = string
    }

    @inlinable
    package static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.string.hasSameBytes(as: rhs.string)
    }

    @inlinable
    package func hash(into hasher: inout Hasher) {
        string.hashBytes(into: &hasher)
    }
}

extension DatabaseValue {
    /// True when both values are the same to SQLite: text and blobs by their bytes, reals by
    /// their bits (`-0.0` reads back as itself), and NaN equal to NaN, so that a key holding one
    /// equals itself.
    @inlinable
    package func isIdentical(to other: DatabaseValue) -> Bool {
        switch (self, other) {
        case (.text(let lhs), .text(let rhs)): lhs.hasSameBytes(as: rhs)
        case (.real(let lhs), .real(let rhs)): lhs.bitPattern == rhs.bitPattern || (lhs.isNaN && rhs.isNaN)
        default: self == other
        }
    }

    /// Feeds the value to `hasher`: equal for values that are ``isIdentical(to:)``.
    @inlinable
    package func hashIdentity(into hasher: inout Hasher) {
        switch self {
        case .text(let text):
            hasher.combine(3 as UInt8)
            text.hashBytes(into: &hasher)
        case .real(let real) where real.isNaN:
            hasher.combine(2 as UInt8)
            hasher.combine(Double.nan)
        default:
            hasher.combine(self)
        }
    }
}
