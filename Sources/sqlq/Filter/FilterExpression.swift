import SQLite

/// A parsed filter expression: the syntax tree of one `--where` option, before its names are
/// checked against a table.
///
/// Every node keeps the position of what it came from, so that errors found later (an unknown
/// column, a type mismatch) can still point into the text the user typed.
indirect enum FilterExpression: Equatable {
    /// A column or a literal value, one side of a comparison.
    enum Operand: Equatable {
        case column(name: String, position: Int, length: Int)
        case literal(FilterLiteral, position: Int, length: Int)
    }

    enum Comparison: String, Equatable, Sendable {
        case equal = "="
        case notEqual = "!="
        case less = "<"
        case lessOrEqual = "<="
        case greater = ">"
        case greaterOrEqual = ">="

        /// The same test with its operands swapped: `3 < priority` is `priority > 3`.
        var mirrored: Comparison {
            switch self {
            case .equal, .notEqual: self
            case .less: .greater
            case .lessOrEqual: .greaterOrEqual
            case .greater: .less
            case .greaterOrEqual: .lessOrEqual
            }
        }
    }

    enum Pattern: String, Equatable, Sendable {
        case like
        case glob
        case contains
    }

    /// A column on its own: true when its value is true (non-zero).
    case column(name: String, position: Int, length: Int)
    case not(FilterExpression)
    case and(FilterExpression, FilterExpression)
    case or(FilterExpression, FilterExpression)
    case comparison(Operand, Comparison, Operand)
    /// `column like 'pattern'`, `glob`, `contains`; `negated` for `not like`. The pattern is a
    /// text literal.
    case pattern(Operand, Pattern, Operand, negated: Bool)
    /// `column in (a, b, …)`; the list holds literals.
    case membership(Operand, [Operand], negated: Bool)
    /// `column between low and high`; the bounds are literals.
    case range(Operand, low: Operand, high: Operand, negated: Bool)
    /// `column is null`, `column is not null`.
    case nullTest(Operand, negated: Bool)
}
