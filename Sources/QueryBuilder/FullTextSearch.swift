import SQLCore

/// An FTS5 query, built safely from what a user typed or given as trusted FTS5 syntax.
///
/// ```swift
/// let pattern = try FTS5Pattern(matching: searchField.text, mode: .allPrefixes)
/// pattern.rawPattern   // "swi"* AND "conc"*   for "swi conc"
/// ```
///
/// Built from user text, the pattern is the text's tokens (runs of letters, digits and combining
/// marks), each quoted as an FTS5 string, so no character of the input is read as FTS5 syntax:
/// `"`, `*`, `NEAR`, `AND`, `OR`, `NOT`, `-`, `^`, `:`, `+` and parentheses are either separators
/// or plain words. The pattern is always bound, never part of the SQL text.
public struct FTS5Pattern: Hashable, Sendable, CustomStringConvertible {
    /// How the tokens of user text combine.
    public enum Mode: Hashable, Sendable {
        /// Rows containing every token: `"a" AND "b"`.
        case allTokens
        /// Rows containing at least one token: `"a" OR "b"`.
        case anyToken
        /// Rows containing, for every token, a word that starts with it: `"a"* AND "b"*`. What a
        /// search box does while the user types.
        case allPrefixes
        /// Rows containing the tokens next to each other, in order: `"a b"`.
        case phrase
    }

    /// The FTS5 query text, as bound to `MATCH`.
    public let rawPattern: String

    /// The pattern that finds `text`'s tokens, combined as `mode` says.
    ///
    /// Throws ``FTS5PatternError`` with ``FTS5PatternError/Kind/noTokens`` when the text has no
    /// letter or digit: there is nothing to search for.
    public init(matching text: String, mode: Mode = .allTokens) throws(FTS5PatternError) {
        let tokens = Self.tokens(of: text)
        guard !tokens.isEmpty else { throw FTS5PatternError(kind: .noTokens, pattern: text) }
        switch mode {
        case .allTokens: rawPattern = tokens.map(Self.quoted).joined(separator: " AND ")
        case .anyToken: rawPattern = tokens.map(Self.quoted).joined(separator: " OR ")
        case .allPrefixes: rawPattern = tokens.map { Self.quoted($0) + "*" }.joined(separator: " AND ")
        case .phrase: rawPattern = Self.quoted(tokens.joined(separator: " "))
        }
    }

    /// A pattern in FTS5's query syntax, for text the program trusts (not what a user typed).
    ///
    /// SQLite parses it when a search runs; a syntax error then fails that fetch. To check it
    /// first, and get ``FTS5PatternError`` with ``FTS5PatternError/Kind/invalidSyntax(_:)``
    /// instead, use the initializer that validates it on a database.
    public init(rawPattern: String) {
        self.rawPattern = rawPattern
    }

    public var description: String { rawPattern }

    /// The runs of letters, digits, private-use characters and marks: the characters FTS5's
    /// default tokenizer keeps in tokens, plus marks so that a decomposed accent stays with its
    /// letter. Everything else separates tokens. (A split that differs from the table's own
    /// tokenizer is still safe: each token is quoted, and the tokenizer splits it again.) A run of
    /// marks alone is no token: it has no letter or digit, and FTS5 finds nothing for it.
    package static func tokens(of text: String) -> [String] {
        var tokens: [String] = []
        var current = String.UnicodeScalarView()
        var hasLetter = false
        func endToken() {
            if hasLetter { tokens.append(String(current)) }
            current = String.UnicodeScalarView()
            hasLetter = false
        }
        for scalar in text.unicodeScalars {
            switch scalar.properties.generalCategory {
            case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
                .decimalNumber, .letterNumber, .otherNumber, .privateUse:
                current.append(scalar)
                hasLetter = true
            case .nonspacingMark, .spacingMark, .enclosingMark:
                current.append(scalar)
            default:
                endToken()
            }
        }
        endToken()
        return tokens
    }

    /// `text` as an FTS5 string: in double quotes, with each double quote doubled, as SQL quotes
    /// an identifier.
    package static func quoted(_ text: String) -> String {
        String.quotedIdentifier(text)
    }
}

/// A search pattern that cannot run: there was nothing to search for, or its FTS5 syntax is wrong.
public struct FTS5PatternError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What is wrong.
    public enum Kind: Hashable, Sendable {
        /// The text has no letter or digit to search for.
        case noTokens
        /// SQLite refused the raw pattern, with this message.
        case invalidSyntax(String)
    }

    /// What is wrong.
    public var kind: Kind
    /// The text or raw pattern as given.
    public var pattern: String

    /// Creates an error.
    public init(kind: Kind, pattern: String) {
        self.kind = kind
        self.pattern = pattern
    }

    public var description: String {
        let quoted = String.quotedLiteral(pattern)
        switch kind {
        case .noTokens:
            return "nothing to search for in \(quoted): type at least one letter or digit"
        case .invalidSyntax(let message):
            return "invalid full-text pattern \(quoted): \(message)"
        }
    }
}

/// A full-text search with an FTS5 index: the filter that keeps the matching rows, and the
/// ranking, snippets and highlights of each match.
///
/// Search the index itself, whose columns are the indexed ones:
///
/// ```swift
/// let search = FullTextSearch(try FTS5Pattern(matching: text), index: "docs_fts")
/// let hits = try Table("docs_fts").filter(search)
///     .select(Column("title"), search.snippet(column: 1))
///     .sort(search.bm25())
///     .fetchAll(db)
/// ```
///
/// or the content table an external-content index covers, with all of its columns:
///
/// ```swift
/// let search = FullTextSearch(pattern, index: "docs_fts", contentTable: "docs", contentRowID: "id")
/// let docs = try Doc.all().filter(search && Column("archived") == false).sort(search.bm25()).fetchAll(db)
/// ```
///
/// On the content table, the filter is `"id" IN (SELECT rowid FROM the index WHERE … MATCH ?)`,
/// and the ranking, snippet and highlight each look the row up among the index's matches, which
/// SQLite computes once per fetch: about twice the cost of the same search on the index's own
/// rows, which rank faster. Every name is quoted and the pattern is bound.
///
/// FTS5 is SQLite's: a request with a search refuses to render for PostgreSQL, and its fetch
/// there throws.
public struct FullTextSearch: Hashable, Sendable, SQLExpressible {
    /// What the search looks for.
    public let pattern: FTS5Pattern
    /// The FTS5 table, unquoted.
    public let index: String
    /// The table the request reads, when it is the index's content table rather than the index.
    public let contentTable: String?
    /// The content table's column that holds the index's rowids (its `content_rowid`).
    public let contentRowID: String

    /// A search of the rows of the FTS5 table `index`.
    public init(_ pattern: FTS5Pattern, index: String) {
        self.pattern = pattern
        self.index = index
        contentTable = nil
        contentRowID = "rowid"
    }

    /// A search of the rows of `contentTable` that the FTS5 table `index` finds: those whose
    /// `contentRowID` is the rowid of a match.
    public init(_ pattern: FTS5Pattern, index: String, contentTable: String, contentRowID: String = "rowid") {
        self.pattern = pattern
        self.index = index
        self.contentTable = contentTable
        self.contentRowID = contentRowID
    }

    /// The filter: rows that match the pattern.
    public var sqlExpression: SQLExpression {
        guard let contentTable else {
            return SQLExpression(
                SQLFragment([
                    .foreignIdentifier(index), .fullTextSearch(" MATCH "), .binding(.text(pattern.rawPattern)),
                ]),
                precedence: .comparison)
        }
        var segments: [SQLFragment.Segment] = [
            .foreignIdentifier(contentTable), .sql("."), .foreignIdentifier(contentRowID),
            .sql(" IN (SELECT "), .foreignIdentifier(index), .sql("."), .foreignIdentifier("rowid"),
            .sql(" FROM "), .foreignIdentifier(index), .sql(" WHERE "),
        ]
        segments += matchSegments
        segments.append(.sql(")"))
        return SQLExpression(SQLFragment(segments), precedence: .comparison)
    }

    /// The match's BM25 score, `bm25(index, weights…)`: the better the match, the lower the
    /// score, so sorting by it ascending puts the best matches first. `weights` weigh the index's
    /// columns in order (1 for each column not given).
    public func bm25(weights: Double...) -> SQLExpression {
        function("bm25(", weights.map { .binding(.real($0)) })
    }

    /// The text of the index's column number `column` (from 0; -1 lets FTS5 choose) around the
    /// best match, at most `tokens` tokens (1 to 64), with each matched term between `open` and
    /// `close`, and `ellipsis` where text was cut.
    public func snippet(
        column: Int = -1, open: String = "<b>", close: String = "</b>", ellipsis: String = "…", tokens: Int = 16
    ) -> SQLExpression {
        function(
            "snippet(",
            [
                .binding(.integer(Int64(column))), .binding(.text(open)), .binding(.text(close)),
                .binding(.text(ellipsis)), .binding(.integer(Int64(tokens))),
            ])
    }

    /// The whole text of the index's column number `column` (from 0), with each matched term
    /// between `open` and `close`.
    public func highlight(column: Int, open: String = "<b>", close: String = "</b>") -> SQLExpression {
        function("highlight(", [.binding(.integer(Int64(column))), .binding(.text(open)), .binding(.text(close))])
    }

    /// `"index" MATCH ?`
    private var matchSegments: [SQLFragment.Segment] {
        [.foreignIdentifier(index), .fullTextSearch(" MATCH "), .binding(.text(pattern.rawPattern))]
    }

    /// An FTS5 auxiliary function of the match: `name"index", arguments…)`, or on the content
    /// table, the same for the row, looked up among the matches computed once:
    ///
    ///     (WITH "index matches"("key", "value") AS MATERIALIZED (SELECT "index"."rowid", name"index", …)
    ///          FROM "index" WHERE "index" MATCH ?)
    ///      SELECT "value" FROM "index matches" WHERE "key" = "content"."rowid")
    ///
    /// A subquery that ran the search for each row would cost the whole match each time (FTS5
    /// reads every doclist of a prefix, and bm25 counts every matching row, per query), so a
    /// ranked search of n matches would cost n². The materialized matches are computed once per
    /// run of the statement, and SQLite looks rows up in them through an automatic index.
    private func function(_ name: String, _ arguments: [SQLFragment.Segment]) -> SQLExpression {
        var call: [SQLFragment.Segment] = [.fullTextSearch(name), .foreignIdentifier(index)]
        for argument in arguments {
            call.append(.sql(", "))
            call.append(argument)
        }
        call.append(.sql(")"))
        guard let contentTable else { return SQLExpression(SQLFragment(call), precedence: .atom) }
        // The outer row is named by its table, so the matches take another name.
        var matches = index + " matches"
        while matches.sqliteNameMatches(contentTable) { matches += "_" }
        var segments: [SQLFragment.Segment] = [
            .sql("(WITH "), .foreignIdentifier(matches), .sql("("), .foreignIdentifier("key"), .sql(", "),
            .foreignIdentifier("value"), .sql(") AS MATERIALIZED (SELECT "), .foreignIdentifier(index), .sql("."),
            .foreignIdentifier("rowid"), .sql(", "),
        ]
        segments += call
        segments += [.sql(" FROM "), .foreignIdentifier(index), .sql(" WHERE ")]
        segments += matchSegments
        segments += [
            .sql(") SELECT "), .foreignIdentifier("value"), .sql(" FROM "), .foreignIdentifier(matches),
            .sql(" WHERE "), .foreignIdentifier("key"), .sql(" = "), .foreignIdentifier(contentTable), .sql("."),
            .foreignIdentifier(contentRowID), .sql(")"),
        ]
        return SQLExpression(SQLFragment(segments), precedence: .atom)
    }
}
