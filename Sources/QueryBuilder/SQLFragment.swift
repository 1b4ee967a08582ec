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
        /// A truth value, as the empty `AND` (true) and `OR` (false) are: `1` and `0` on SQLite,
        /// whose booleans are integers, `TRUE` and `FALSE` on PostgreSQL.
        case boolean(Bool)
        /// A membership test in the empty list, after its left operand: false for every row,
        /// NULL included. SQLite reads ` IN ()`; PostgreSQL has no such syntax, and
        /// ` = ANY('{}')` is false in the same cases, with an array of the left side's type.
        case emptyList
        /// A `LIKE` or `GLOB` with both operands, which the dialects render differently.
        case patternMatch(SQLPatternMatch)
        /// SQL of SQLite's FTS5 (`MATCH`, `bm25(`, `snippet(`, `highlight(`), which only SQLite has.
        case fullTextSearch(String)

        @usableFromInline
        package static func == (lhs: Segment, rhs: Segment) -> Bool {
            switch (lhs, rhs) {
            case (.sql(let lhs), .sql(let rhs)), (.identifier(let lhs), .identifier(let rhs)),
                (.foreignIdentifier(let lhs), .foreignIdentifier(let rhs)):
                lhs.hasSameBytes(as: rhs)
            case (.binding(let lhs), .binding(let rhs)): lhs.isIdentical(to: rhs)
            case (.invalidValue(let lhs), .invalidValue(let rhs)): lhs == rhs
            case (.boolean(let lhs), .boolean(let rhs)): lhs == rhs
            case (.emptyList, .emptyList): true
            case (.patternMatch(let lhs), .patternMatch(let rhs)): lhs == rhs
            case (.fullTextSearch(let lhs), .fullTextSearch(let rhs)): lhs.hasSameBytes(as: rhs)
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
            case .boolean(let value):
                hasher.combine(5 as UInt8)
                hasher.combine(value)
            case .emptyList:
                hasher.combine(6 as UInt8)
            case .patternMatch(let match):
                hasher.combine(7 as UInt8)
                match.hash(into: &hasher)
            case .fullTextSearch(let text):
                hasher.combine(8 as UInt8)
                text.hashBytes(into: &hasher)
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
        var names: [String] = []
        Self.collectIdentifiers(segments, into: &names)
        return names
    }

    private static func collectIdentifiers(_ segments: [Segment], into names: inout [String]) {
        for segment in segments {
            switch segment {
            case .identifier(let name): names.append(name)
            case .patternMatch(let match):
                collectIdentifiers(match.operand, into: &names)
                collectIdentifiers(match.pattern, into: &names)
            case .sql, .foreignIdentifier, .binding, .invalidValue, .boolean, .emptyList, .fullTextSearch: break
            }
        }
    }
}

/// `operand LIKE pattern` or `operand GLOB pattern`, kept whole because the dialects differ
/// around both operands: PostgreSQL folds the case of each side as SQLite's `LIKE` does, and
/// has no `GLOB`.
@usableFromInline
package struct SQLPatternMatch: Hashable, Sendable {
    @usableFromInline
    package enum Kind: UInt8, Hashable, Sendable {
        /// `LIKE`, with no escape character.
        case like
        /// `LIKE … ESCAPE '\'`, as `contains` and `hasPrefix` write it.
        case likeEscapedByBackslash
        /// `GLOB`, case-sensitive, SQLite's only.
        case glob
    }

    package var kind: Kind
    /// The left operand, parenthesized when it is compound.
    package var operand: [SQLFragment.Segment]
    /// The pattern, parenthesized when it is compound: nearly always one bound value.
    package var pattern: [SQLFragment.Segment]

    @usableFromInline
    package init(_ kind: Kind, operand: [SQLFragment.Segment], pattern: [SQLFragment.Segment]) {
        self.kind = kind
        self.operand = operand
        self.pattern = pattern
    }

    @usableFromInline
    package static func == (lhs: SQLPatternMatch, rhs: SQLPatternMatch) -> Bool {
        lhs.kind == rhs.kind && lhs.operand == rhs.operand && lhs.pattern == rhs.pattern
    }

    @usableFromInline
    package func hash(into hasher: inout Hasher) {
        Self.hash(kind, operand: operand, pattern: pattern, into: &hasher)
    }

    /// The hash of a match with these parts, for an expression stored inline to hash as the
    /// match it stands for without making it.
    package static func hash(
        _ kind: Kind, operand: [SQLFragment.Segment], pattern: [SQLFragment.Segment], into hasher: inout Hasher
    ) {
        hasher.combine(kind)
        hasher.combine(operand.count)
        for segment in operand { segment.hash(into: &hasher) }
        for segment in pattern { segment.hash(into: &hasher) }
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

    /// SQL text written by this module, kept in a fragment: the same in every dialect.
    package func append(text: String) {
        appendRaw(text)
    }

    /// Turns off the escape character of PostgreSQL's LIKE, for SQLite's meaning of a pattern.
    private static let noLikeEscape = " ESCAPE ''"

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
            if let kind = op.patternKind {
                return appendPatternMatch(kind, operand: { appendIdentifier(name) }, pattern: { appendBinding(value) })
            }
            appendIdentifier(name)
            append(op.sql)
            appendBinding(value)
        case .fragment(let fragment, _):
            append(fragment)
        }
    }

    package func append(_ fragment: SQLFragment) {
        append(fragment.segments)
    }

    private func append(_ segments: [SQLFragment.Segment]) {
        for segment in segments { append(segment) }
    }

    private func append(_ segment: SQLFragment.Segment) {
        switch segment {
        case .sql(let text): appendRaw(text)
        case .identifier(let name), .foreignIdentifier(let name): appendIdentifier(name)
        case .binding(let value): appendBinding(value)
        case .invalidValue(let error):
            if invalidValue == nil { invalidValue = error }
            appendBinding(.null)
        case .boolean(let value):
            switch dialect {
            case .sqlite: append(byte: value ? UInt8(ascii: "1") : UInt8(ascii: "0"))
            case .postgreSQL: append(value ? "TRUE" : "FALSE")
            }
        case .emptyList:
            switch dialect {
            case .sqlite: append(" IN ()")
            case .postgreSQL: append(" = ANY('{}')")
            }
        case .patternMatch(let match):
            appendPatternMatch(match.kind, operand: { append(match.operand) }, pattern: { append(match.pattern) })
        case .fullTextSearch(let text):
            if dialect != .sqlite, unsupported == nil {
                unsupported = "FTS5 full-text search (MATCH, bm25, snippet, highlight)"
            }
            appendRaw(text)
        }
    }

    /// `operand LIKE pattern`, `… ESCAPE '\'` or `operand GLOB pattern`. On PostgreSQL, a `LIKE`
    /// compares both sides' text with only the ASCII letters folded, as SQLite's does whatever
    /// the database's locale (`ILIKE` and `lower()` follow the locale: `É` matches `é` under
    /// ICU), and with no escape character unless one is named; the left side is compared as
    /// text, as SQLite compares a number's text form (`priority LIKE '1%'`).
    private func appendPatternMatch(_ kind: SQLPatternMatch.Kind, operand: () -> Void, pattern: () -> Void) {
        switch (dialect, kind) {
        case (.postgreSQL, .like), (.postgreSQL, .likeEscapedByBackslash):
            appendRaw(Self.foldOpen)
            operand()
            appendRaw("::text")
            appendRaw(Self.foldClose)
            appendRaw(" LIKE ")
            appendRaw(Self.foldOpen)
            pattern()
            appendRaw(Self.foldClose)
            appendRaw(kind == .like ? Self.noLikeEscape : " ESCAPE '\\'")
        case (_, .glob):
            if dialect != .sqlite, unsupported == nil { unsupported = "GLOB" }
            operand()
            append(" GLOB ")
            pattern()
        case (.sqlite, _):
            operand()
            append(" LIKE ")
            pattern()
            if kind == .likeEscapedByBackslash { append(" ESCAPE '\\'") }
        }
    }

    /// Throws the first value with no stored form: a request that holds one must not run.
    package func checkValues() throws(ValueConversionError) {
        if let invalidValue { throw invalidValue }
    }

    /// Opens the ASCII-only case folding of a `LIKE` operand.
    private static let foldOpen = "translate("
    /// Closes it: SQLite's `LIKE` folds the 26 ASCII letters and nothing else.
    private static let foldClose = ", 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')"

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
