extension DatabaseValue {
    /// The number SQLite stores when `text` is written to a column of INTEGER, REAL or NUMERIC
    /// affinity, or `nil` when SQLite keeps the text as text.
    ///
    /// SQLite converts only a whole decimal literal, with optional surrounding whitespace:
    /// `" 12"`, `"-1.5e3"`, `".5"`, `"7."`. It keeps `"0x1A"`, `"nan"`, `"inf"`, `"1,5"`, `"1e"`
    /// and `""` as text, although Swift's `Double(_:)` reads the first three as numbers. Code that
    /// checks input against a column's declared type calls this to agree with SQLite.
    ///
    /// The result is what a NUMERIC or INTEGER column stores: ``integer(_:)`` for an integer in
    /// the range of `Int64`, and for a real literal whose value is a whole number inside that range
    /// (`"3.0e5"` gives `300000`); ``real(_:)`` for any other number (a literal too large
    /// for a double gives an infinity, as in SQLite). A REAL column stores the same number as a
    /// double.
    public static func numericAffinity(of text: String) -> DatabaseValue? {
        var utf8 = Substring(text).utf8[...]
        while let first = utf8.first, isSQLiteSpace(first) { utf8.removeFirst() }
        while let last = utf8.last, isSQLiteSpace(last) { utf8.removeLast() }

        var index = utf8.startIndex
        func next() -> UInt8? { index < utf8.endIndex ? utf8[index] : nil }
        func skipDigits() -> Int {
            var count = 0
            while let byte = next(), byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                utf8.formIndex(after: &index)
                count += 1
            }
            return count
        }

        if next() == UInt8(ascii: "+") || next() == UInt8(ascii: "-") { utf8.formIndex(after: &index) }
        var digits = skipDigits()
        var isInteger = true
        if next() == UInt8(ascii: ".") {
            utf8.formIndex(after: &index)
            digits += skipDigits()
            isInteger = false
        }
        guard digits > 0 else { return nil }
        if next() == UInt8(ascii: "e") || next() == UInt8(ascii: "E") {
            utf8.formIndex(after: &index)
            if next() == UInt8(ascii: "+") || next() == UInt8(ascii: "-") { utf8.formIndex(after: &index) }
            guard skipDigits() > 0 else { return nil }
            isInteger = false
        }
        guard index == utf8.endIndex else { return nil }

        let literal = String(Substring(utf8))
        if isInteger, let integer = Int64(literal) { return .integer(integer) }
        guard let real = Double(literal) else { return nil }
        // As sqlite3VdbeIntegerAffinity: a real that is a whole number strictly inside Int64's range
        // is stored as an integer.
        if let integer = Int64(exactly: real), integer != .min, integer != .max { return .integer(integer) }
        return .real(real)
    }

    /// SQLite's `sqlite3Isspace`: the ASCII space and the controls from tab to carriage return.
    private static func isSQLiteSpace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || (byte >= 0x09 && byte <= 0x0D)
    }
}
