import SQLite

/// A parsed filter expression: the syntax tree of one `--where` option, before its names are
/// checked against a table.
///
/// The types admit only what the parser produces, so the compiler has no shape to reject: a
/// predicate always has a column on its left, a pattern is always text, lists and bounds are
/// always values. `and` and `or` hold all their operands in one node, and a negation never holds
/// another one (`not not x` is `x`), so a tree is as deep as its groups nest, however long its
/// chains.
///
/// Every column and value keeps the position of what it came from, so that errors found later
/// (an unknown column, a type mismatch) can still point into the text the user typed.
indirect enum FilterExpression: Equatable {
    /// Two or more operands, all true; none of them is itself an `all`.
    case all([FilterExpression])
    /// Two or more operands, one of them true; none of them is itself an `any`.
    case any([FilterExpression])
    /// The negation of an operand that is not itself a negation.
    case not(FilterExpression)
    case predicate(FilterPredicate)

    /// A column name, where it was written: one step, or a dotted path that follows foreign
    /// keys (`hero_id.name`).
    struct ColumnName: Equatable {
        /// The name as written, dots included.
        var name: String
        var position: Int
        var length: Int
        /// Each dotted part, where it was written.
        var steps: [ForeignKeyPath.Step]

        init(name: String, position: Int, length: Int, steps: [ForeignKeyPath.Step]? = nil) {
            self.name = name
            self.position = position
            self.length = length
            self.steps = steps ?? [ForeignKeyPath.Step(name: name, position: position, length: length)]
        }
    }

    /// A literal value, where it was written.
    struct Value: Equatable {
        var literal: FilterLiteral
        var position: Int
        var length: Int
    }

    /// A text literal, the only value a pattern operator takes.
    struct Text: Equatable {
        var text: String
        var position: Int
        var length: Int
    }

    /// The right side of a comparison.
    enum Operand: Equatable {
        case column(ColumnName)
        case value(Value)
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
}

/// One test on a column: the leaves of a ``FilterExpression``. A value on the left of a
/// comparison (`3 < priority`) is stored mirrored (`priority > 3`).
enum FilterPredicate: Equatable {
    /// A column on its own: true when its value is true (non-zero).
    case truth(FilterExpression.ColumnName)
    case comparison(FilterExpression.ColumnName, FilterExpression.Comparison, FilterExpression.Operand)
    /// `column like 'pattern'`, `glob`, `contains`; `negated` for `not like`.
    case pattern(FilterExpression.ColumnName, FilterExpression.Pattern, FilterExpression.Text, negated: Bool)
    /// `column in (a, b, …)`, with at least one value.
    case membership(FilterExpression.ColumnName, [FilterExpression.Value], negated: Bool)
    /// `column between low and high`.
    case range(FilterExpression.ColumnName, low: FilterExpression.Value, high: FilterExpression.Value, negated: Bool)
    /// `column is null`, `column is not null`.
    case nullTest(FilterExpression.ColumnName, negated: Bool)

    /// The predicate's negated form, for those that have one.
    var negated: FilterPredicate? {
        switch self {
        case .truth, .comparison: nil
        case .pattern(let column, let pattern, let text, let negated):
            .pattern(column, pattern, text, negated: !negated)
        case .membership(let column, let values, let negated): .membership(column, values, negated: !negated)
        case .range(let column, let low, let high, let negated): .range(column, low: low, high: high, negated: !negated)
        case .nullTest(let column, let negated): .nullTest(column, negated: !negated)
        }
    }
}
