import SQLCore

/// A piece of SQL as a list of segments: SQL text, identifiers and bound values, in order.
///
/// Expressions, orderings and requests are all built from fragments and become SQL text in one
/// place, ``SQLRenderer``. That is where identifiers get quoted and values become `?`
/// placeholders, so no builder can forget either, and the same shape always renders the same
/// text (which is what lets the prepared-statement cache hit).
@usableFromInline
package struct SQLFragment: Hashable, Sendable {
    @usableFromInline
    package enum Segment: Hashable, Sendable {
        /// SQL text written by this module, never by a user.
        case sql(String)
        /// A table or column name, quoted when rendered.
        case identifier(String)
        /// A name from another table than the request's (a lookup's table, alias or column):
        /// quoted like any identifier, but left out of the request's schema checks.
        case foreignIdentifier(String)
        /// A value, rendered as `?` and bound.
        case binding(DatabaseValue)
        /// A Swift value with no stored form (a `Date` past year 9999): rendered as a placeholder
        /// bound to NULL, and reported by the renderer, so that the request throws when it runs.
        case invalidValue(ValueConversionError)

        @usableFromInline
        package static func == (lhs: Segment, rhs: Segment) -> Bool {
            switch (lhs, rhs) {
            case (.sql(let lhs), .sql(let rhs)), (.identifier(let lhs), .identifier(let rhs)),
                (.foreignIdentifier(let lhs), .foreignIdentifier(let rhs)):
                lhs.hasSameBytes(as: rhs)
            case (.binding(let lhs), .binding(let rhs)): lhs.isIdentical(to: rhs)
            case (.invalidValue(let lhs), .invalidValue(let rhs)): lhs == rhs
            default: false
            }
        }

        @usableFromInline
        package func hash(into hasher: inout Hasher) {
            switch self {
            case .sql(let text):
                hasher.combine(0 as UInt8)
                text.hashBytes(into: &hasher)
            case .identifier(let name):
                hasher.combine(1 as UInt8)
                name.hashBytes(into: &hasher)
            case .foreignIdentifier(let name):
                hasher.combine(2 as UInt8)
                name.hashBytes(into: &hasher)
            case .binding(let value):
                hasher.combine(3 as UInt8)
                value.hashIdentity(into: &hasher)
            case .invalidValue(let error):
                hasher.combine(4 as UInt8)
                hasher.combine(error)
            }
        }

        /// The binding of `value`, or the reason it has none.
        @inlinable
        package static func binding(of value: some DatabaseValueConvertible) -> Segment {
            do {
                return .binding(try value.databaseValue)
            } catch {
                return .invalidValue(ValueConversionError(error, of: value))
            }
        }
    }

    @usableFromInline package var segments: [Segment]

    @inlinable
    package init(_ segments: [Segment]) {
        self.segments = segments
    }

    // Equal when the segments are the same to SQLite: names and text by their bytes.

    @usableFromInline
    package static func == (lhs: SQLFragment, rhs: SQLFragment) -> Bool {
        lhs.segments.count == rhs.segments.count && zip(lhs.segments, rhs.segments).allSatisfy { $0 == $1 }
    }

    @usableFromInline
    package func hash(into hasher: inout Hasher) {
        // Each segment's hash ends with its length, so the segments need no count of their own,
        // and an expression stored inline hashes its segments the same way without making them.
        for segment in segments { segment.hash(into: &hasher) }
    }

    /// The identifiers the fragment mentions, for schema checks.
    package var identifiers: [String] {
        segments.compactMap { segment in
            if case .identifier(let name) = segment { return name }
            return nil
        }
    }
}

/// The SQL dialects a request renders to.
package enum SQLDialect: Sendable {
    /// SQLite's: `?` placeholders.
    case sqlite
    /// PostgreSQL's, for the same results as SQLite's: `$1, $2…` placeholders; a real bound as
    /// `numeric` and an integer beyond 32 bits as `int8`, so that it compares with a column of
    /// any numeric type as SQLite compares it (an untyped parameter would take the column's
    /// type, and `2.5` is no integer); `LIKE` on both sides' text with only ASCII letters folded
    /// (`translate(x::text, 'A…Z', 'a…z') LIKE translate(?, …) ESCAPE ''`), as SQLite's `LIKE`
    /// folds them whatever the database's locale, with no escape character unless one is named;
    /// `TRUE`/`FALSE` for the empty `AND`/`OR`, `= ANY('{}')` for an empty `IN`, and NULLs placed
    /// where SQLite places them (first in ascending order). `GLOB` has no equivalent.
    case postgreSQL
}

/// Turns expressions and fragments into SQL text and the arguments to bind, in one pass.
///
/// The text accumulates as UTF-8 bytes in storage of its own, and becomes a `String` only when
/// asked: a request that runs finds its cached statement by those bytes. Each connection keeps
/// one renderer and reuses its storage, so rendering a request allocates nothing.
@usableFromInline
package final class SQLRenderer {
    package let dialect: SQLDialect
    /// The first construct the dialect cannot express (PostgreSQL has no `GLOB` and no FTS5), if any: the
    /// rendered SQL must not run.
    package private(set) var unsupported: String?
    /// The first value with no stored form, if any: the rendered SQL must not run.
    package private(set) var invalidValue: ValueConversionError?
    // Only used by one rendering at a time; dynamic exclusivity checks would cost more than
    // the appends.
    @exclusivity(unchecked) private var storage: UnsafeMutableRawPointer
    @exclusivity(unchecked) private var capacity: Int
    @exclusivity(unchecked) private var count = 0
    /// The values bound to the `?` placeholders, in order.
    @exclusivity(unchecked) package var arguments: [DatabaseValue] = []

    package init(capacity: Int = 128, dialect: SQLDialect = .sqlite) {
        self.dialect = dialect
        self.capacity = max(capacity, 16)
        storage = .allocate(byteCount: self.capacity, alignment: 1)
    }

    deinit {
        storage.deallocate()
    }

    /// The SQL text rendered so far, as UTF-8; valid until the renderer changes.
    package var bytes: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: storage, count: count)
    }

    /// The SQL text rendered so far.
    package var sql: String {
        String(decoding: bytes, as: UTF8.self)
    }

    /// Empties the renderer and keeps its storage.
    package func removeAll() {
        count = 0
        arguments.removeAll(keepingCapacity: true)
        unsupported = nil
        invalidValue = nil
    }

    @inline(__always)
    private func append(_ source: UnsafeRawPointer, byteCount: Int) {
        if count + byteCount > capacity { grow(minimumCapacity: count + byteCount) }
        (storage + count).copyMemory(from: source, byteCount: byteCount)
        count += byteCount
    }

    @inline(__always)
    private func append(byte: UInt8) {
        if count == capacity { grow(minimumCapacity: count + 1) }
        storage.storeBytes(of: byte, toByteOffset: count, as: UInt8.self)
        count += 1
    }

    private func grow(minimumCapacity: Int) {
        let newCapacity = max(minimumCapacity, capacity * 2)
        let newStorage = UnsafeMutableRawPointer.allocate(byteCount: newCapacity, alignment: 1)
        newStorage.copyMemory(from: storage, byteCount: count)
        storage.deallocate()
        storage = newStorage
        capacity = newCapacity
    }

    /// SQL text written by this module.
    package func append(_ text: StaticString) {
        append(text.utf8Start, byteCount: text.utf8CodeUnitCount)
    }

    /// SQL text written by this module, kept in a fragment.
    package func append(text: String) {
        if dialect == .postgreSQL, let translated = postgreSQLText(for: text) {
            return appendRaw(translated)
        }
        appendRaw(text)
    }

    /// Turns off the escape character of PostgreSQL's LIKE, for SQLite's meaning of a pattern.
    private static let noLikeEscape = " ESCAPE ''"

    /// The PostgreSQL spelling of the few pieces of SQLite text that differ, or nil when the
    /// text is the same in both.
    private func postgreSQLText(for text: String) -> String? {
        switch text {
        // The empty AND and OR: SQLite's booleans are integers, PostgreSQL's are not.
        case "1": return "TRUE"
        case "0": return "FALSE"
        case " GLOB ":
            if unsupported == nil { unsupported = "GLOB" }
            return nil
        case " MATCH ", "bm25(", "snippet(", "highlight(":
            if unsupported == nil { unsupported = "FTS5 full-text search (MATCH, bm25, snippet, highlight)" }
            return nil
        default: return nil
        }
    }

    private func appendRaw(_ text: String) {
        let copied: Void? = text.utf8.withContiguousStorageIfAvailable { utf8 in
            if let base = utf8.baseAddress { append(base, byteCount: utf8.count) }
        }
        if copied == nil {
            for byte in text.utf8 { append(byte: byte) }
        }
    }

    package func append(_ expression: SQLExpression) {
        switch expression.node {
        case .column(let name):
            appendIdentifier(name)
        case .comparison(let name, let op, let value):
            if dialect == .postgreSQL && op == .like {
                appendRaw(Self.foldOpen)
                appendIdentifier(name)
                appendLikeRest(value, escaped: false)
                return
            }
            appendIdentifier(name)
            if dialect == .sqlite { append(op.sql) } else { append(text: op.sql.description) }
            appendBinding(value)
        case .fragment(let fragment, _):
            append(fragment)
        }
    }

    package func append(_ fragment: SQLFragment) {
        guard dialect == .sqlite else { return appendPostgreSQL(fragment) }
        for segment in fragment.segments { append(segment) }
    }

    private func append(_ segment: SQLFragment.Segment) {
        switch segment {
        case .sql(let text): append(text: text)
        case .identifier(let name), .foreignIdentifier(let name): appendIdentifier(name)
        case .binding(let value): appendBinding(value)
        case .invalidValue(let error):
            if invalidValue == nil { invalidValue = error }
            appendBinding(.null)
        }
    }

    /// Throws the first value with no stored form: a request that holds one must not run.
    package func checkValues() throws(ValueConversionError) {
        if let invalidValue { throw invalidValue }
    }

    /// Opens the ASCII-only case folding of a `LIKE` operand.
    private static let foldOpen = "translate("
    /// Closes it: SQLite's `LIKE` folds the 26 ASCII letters and nothing else, while
    /// PostgreSQL's `ILIKE` and `lower()` follow the database's locale (`É` matches `é` under ICU).
    private static let foldClose = ", 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')"

    /// The rest of `translate(lhs` `::text, …) LIKE translate(?, …) ESCAPE …`. The left side
    /// is compared as text, as SQLite compares a number's text form (`priority LIKE '1%'`).
    private func appendLikeRest(_ pattern: DatabaseValue, escaped: Bool) {
        appendRaw("::text")
        appendRaw(Self.foldClose)
        appendRaw(" LIKE ")
        appendRaw(Self.foldOpen)
        appendBinding(pattern)
        appendRaw(Self.foldClose)
        if !escaped { appendRaw(Self.noLikeEscape) }
    }

    /// Where the left operand of each `LIKE ?` in `segments` starts (how many begin at an index),
    /// and where those `LIKE`s are: the operand is one atom (a name, a value, or a parenthesized
    /// group, as the builders write it), found by walking back over balanced parentheses.
    private static func likeOperandStarts(_ segments: [SQLFragment.Segment]) -> (starts: [Int: Int], likes: Set<Int>) {
        var starts: [Int: Int] = [:]
        var likes: Set<Int> = []
        for index in segments.indices {
            guard case .sql(" LIKE ") = segments[index], index > 0, index + 1 < segments.count,
                case .binding = segments[index + 1]
            else { continue }
            var start = index - 1
            var depth = 0
            while start >= 0 {
                if case .sql(let text) = segments[start] {
                    for byte in text.utf8 {
                        if byte == UInt8(ascii: ")") { depth += 1 } else if byte == UInt8(ascii: "(") { depth -= 1 }
                    }
                }
                if depth <= 0 { break }
                start -= 1
            }
            guard start >= 0, depth == 0 else { continue }
            // A qualified name, `"alias"."column"`, is one atom too.
            while start >= 2, case .sql(".") = segments[start - 1] { start -= 2 }
            starts[start, default: 0] += 1
            likes.insert(index)
        }
        return (starts, likes)
    }

    /// A fragment in PostgreSQL's dialect: the pieces whose meaning depends on their neighbours.
    private func appendPostgreSQL(_ fragment: SQLFragment) {
        let (likeStarts, likes) =
            fragment.segments.contains(.sql(" LIKE ")) ? Self.likeOperandStarts(fragment.segments) : ([:], [])
        var segments = fragment.segments[...]
        // The slice keeps the array's indices, which are those of `likeStarts` and `likes`.
        while let position = segments.indices.first, let segment = segments.popFirst() {
            for _ in 0..<(likeStarts[position] ?? 0) { appendRaw(Self.foldOpen) }
            // An empty list: SQLite reads `IN ()` as false, even for NULL; PostgreSQL has no such
            // syntax, and `= ANY('{}')` is false in the same cases, with an array of the left
            // side's type.
            if case .sql(" IN (") = segment, case .sql(")") = segments.first {
                segments.removeFirst()
                appendRaw(" = ANY('{}')")
                continue
            }
            // PostgreSQL's LIKE takes `\` as an escape character unless told otherwise; SQLite's
            // has none. `contains` and `hasPrefix` name their own.
            if likes.contains(position), case .binding(let value) = segments.first {
                segments.removeFirst()
                var escaped = false
                if case .sql(" ESCAPE '\\'") = segments.first { escaped = true }
                appendLikeRest(value, escaped: escaped)
                continue
            }
            append(segment)
        }
    }

    package func appendBinding(_ value: DatabaseValue) {
        arguments.append(value)
        switch dialect {
        case .sqlite:
            append(byte: UInt8(ascii: "?"))
        case .postgreSQL:
            append(byte: UInt8(ascii: "$"))
            appendRaw(String(arguments.count))
            // Untyped, a parameter takes the type of the column it meets; these would not parse
            // as an integer column's value. numeric holds the double's text exactly, and compares
            // exactly with integers.
            switch value {
            case .real: appendRaw("::numeric")
            case .integer(let integer) where Int32(exactly: integer) == nil: appendRaw("::int8")
            default: break
            }
        }
    }

    /// Double quotes, with embedded double quotes doubled: the only quoting SQLite reads as an
    /// identifier in every position (single quotes can turn into a string literal).
    package func appendIdentifier(_ name: String) {
        let quote = UInt8(ascii: "\"")
        append(byte: quote)
        let copied = name.utf8.withContiguousStorageIfAvailable { utf8 in
            guard let base = utf8.baseAddress, !utf8.contains(quote) else { return false }
            append(base, byteCount: utf8.count)
            return true
        }
        if copied != true {
            for byte in name.utf8 {
                append(byte: byte)
                if byte == quote { append(byte: quote) }
            }
        }
        append(byte: quote)
    }
}

extension String {
    /// `name` as a quoted SQL identifier: `"name"`, with embedded quotes doubled, as the query
    /// builder writes every table and column name.
    ///
    /// ```swift
    /// String.quotedIdentifier(#"my "odd" table"#)   // "my ""odd"" table"
    /// ```
    public static func quotedIdentifier(_ name: String) -> String {
        let renderer = SQLRenderer(capacity: name.utf8.count + 2)
        renderer.appendIdentifier(name)
        return renderer.sql
    }

    /// `text` as an SQL string literal: `'text'`, with embedded single quotes doubled, for SQL
    /// that takes no bound values (DDL, trigger bodies).
    ///
    /// Both quotings work on bytes: a quote followed by a combining mark is one `Character`, which
    /// a replacement of characters would leave single.
    package static func quotedLiteral(_ text: String) -> String {
        let quote = UInt8(ascii: "'")
        var bytes: [UInt8] = [quote]
        bytes.reserveCapacity(text.utf8.count + 2)
        for byte in text.utf8 {
            bytes.append(byte)
            if byte == quote { bytes.append(quote) }
        }
        bytes.append(quote)
        return String(decoding: bytes, as: UTF8.self)
    }
}
