/// A piece of SQL as a list of segments: SQL text, identifiers and bound values, in order.
///
/// Expressions, orderings and requests are all built from fragments and become SQL text in one
/// place, ``SQLRenderer``. That is where identifiers get quoted and values become `?`
/// placeholders, so no builder can forget either, and the same shape always renders the same
/// text (which is what lets the prepared-statement cache hit).
@usableFromInline
struct SQLFragment: Hashable, Sendable {
    @usableFromInline
    enum Segment: Hashable, Sendable {
        /// SQL text written by this module, never by a user.
        case sql(String)
        /// A table or column name, quoted when rendered.
        case identifier(String)
        /// A value, rendered as `?` and bound.
        case binding(SQLiteValue)
    }

    @usableFromInline var segments: [Segment]

    @inlinable
    init(_ segments: [Segment]) {
        self.segments = segments
    }

    /// How many values the fragment binds.
    @usableFromInline
    var bindingCount: Int {
        var count = 0
        for segment in segments {
            if case .binding = segment { count += 1 }
        }
        return count
    }

    /// The identifiers the fragment mentions, for schema checks.
    var identifiers: [String] {
        segments.compactMap { segment in
            if case .identifier(let name) = segment { return name }
            return nil
        }
    }
}

/// Turns fragments into SQL text and the arguments to bind, in one pass.
///
/// The text accumulates as UTF-8 bytes and becomes a `String` once at the end: appending many
/// short pieces to a `String` costs several times more than to a byte array, and a request
/// renders on every fetch.
@usableFromInline
struct SQLRenderer {
    @usableFromInline var bytes: [UInt8]
    @usableFromInline var arguments: [SQLiteValue]

    @usableFromInline
    init(capacity: Int = 128, argumentCapacity: Int = 0) {
        bytes = []
        bytes.reserveCapacity(capacity)
        arguments = []
        // Sized up front so that binding never reallocates the array mid-render.
        if argumentCapacity > 0 { arguments.reserveCapacity(argumentCapacity) }
    }

    /// The SQL text rendered so far.
    @usableFromInline
    var sql: String { String(decoding: bytes, as: UTF8.self) }

    @usableFromInline
    mutating func append(_ text: String) {
        bytes.append(contentsOf: text.utf8)
    }

    @usableFromInline
    mutating func append(_ fragment: SQLFragment) {
        for segment in fragment.segments {
            switch segment {
            case .sql(let text): bytes.append(contentsOf: text.utf8)
            case .identifier(let name): appendIdentifier(name)
            case .binding(let value): appendBinding(value)
            }
        }
    }

    @usableFromInline
    mutating func appendBinding(_ value: SQLiteValue) {
        bytes.append(UInt8(ascii: "?"))
        arguments.append(value)
    }

    /// Double quotes, with embedded double quotes doubled: the only quoting SQLite reads as an
    /// identifier in every position (single quotes can turn into a string literal).
    @usableFromInline
    mutating func appendIdentifier(_ name: String) {
        let quote = UInt8(ascii: "\"")
        bytes.append(quote)
        for byte in name.utf8 {
            bytes.append(byte)
            if byte == quote { bytes.append(quote) }
        }
        bytes.append(quote)
    }
}

extension String {
    /// `name` as a quoted SQL identifier: `"name"`, with embedded quotes doubled.
    static func quotedIdentifier(_ name: String) -> String {
        var renderer = SQLRenderer(capacity: name.utf8.count + 2)
        renderer.appendIdentifier(name)
        return renderer.sql
    }
}
