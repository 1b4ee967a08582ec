import SQLite

/// One token of a filter expression, with where it starts and how long it is, in characters,
/// so that an error can underline it.
struct FilterToken: Equatable {
    enum Kind: Equatable {
        /// A column name, as written (unquoted or `"quoted"`).
        case identifier(String)
        /// A dotted name that follows foreign keys (`hero_id.name`): two steps or more.
        case path([ForeignKeyPath.Step])
        /// A reserved word, lowercased: and, or, not, like, glob, contains, in, between, is.
        case keyword(String)
        /// A literal value: a number, a 'string', true, false, null or a date.
        case literal(FilterLiteral)
        /// `=`, `==`, `!=`, `<>`, `<`, `<=`, `>`, `>=`.
        case comparison(FilterExpression.Comparison)
        case leftParenthesis
        case rightParenthesis
        case comma
        case end
    }

    var kind: Kind
    /// The first character's offset in the expression.
    var position: Int
    /// The number of characters.
    var length: Int

    /// How the token reads in an error message: `"and"`, `the number 3`, `the end of the expression`.
    var description: String {
        switch kind {
        case .identifier(let name): "the column name \(name)"
        case .path(let steps): "the column name \(steps.map(\.name).joined(separator: "."))"
        case .keyword(let word): "\"\(word)\""
        case .literal(let literal): literal.description
        case .comparison(let comparison): "\"\(comparison.rawValue)\""
        case .leftParenthesis: "\"(\""
        case .rightParenthesis: "\")\""
        case .comma: "\",\""
        case .end: "the end of the expression"
        }
    }
}

/// A literal value of the filter language.
struct FilterLiteral: Equatable, Sendable {
    enum Kind: Equatable, Sendable {
        case integer
        case real
        case text
        case boolean
        case null
        /// A date or date-time, bound as text in SQLite's date format.
        case date
    }

    var kind: Kind
    /// The value bound for it.
    var value: DatabaseValue

    var description: String {
        switch kind {
        case .integer, .real: "the number \(value.cellText)"
        case .text: "the string \(value)"
        case .boolean: value == .integer(1) ? "true" : "false"
        case .null: "null"
        case .date: "the date \(value.cellText)"
        }
    }
}
