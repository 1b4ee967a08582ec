import SQLite

/// Parses one filter expression into a ``FilterExpression``.
///
/// The grammar, loosest binding first (the README has it too):
///
///     expression  = term { "or" term }
///     term        = factor { "and" factor }
///     factor      = "not" factor | "(" expression ")" | predicate
///     predicate   = operand [ comparison operand
///                           | [ "not" ] ( "like" | "glob" | "contains" ) string
///                           | [ "not" ] "in" "(" literal { "," literal } ")"
///                           | [ "not" ] "between" literal "and" literal
///                           | "is" [ "not" ] "null" ]
///     operand     = column | literal
///     comparison  = "=" | "==" | "!=" | "<>" | "<" | "<=" | ">" | ">="
///     literal     = number | string | date | "true" | "false" | "null"
///
/// A predicate that is a column alone tests the column's truth (`done`, `not done`).
///
/// The parser keeps its open groups on a stack of its own rather than recursing, so no input
/// can exhaust the thread's stack: redundant parentheses and chains of `not` cost nothing,
/// `(a or b) or c` flattens into one chain, and a group nested deeper than SQLite can read is an
/// error at its opening parenthesis (see ``maximumNesting``).
struct FilterParser {
    /// The deepest a filter's SQL may nest, in levels of parentheses and NOT. SQLite's parser
    /// has a fixed stack (100 entries in a default build), which overflows at about 21 such
    /// levels in the worst shape, `a AND NOT (b OR NOT (…))`; this leaves room for the levels
    /// that combining several `--where` options adds.
    static let maximumNesting = 16
    private let expression: String
    private let tokens: [FilterToken]
    private var index = 0

    private init(expression: String, tokens: [FilterToken]) {
        self.expression = expression
        self.tokens = tokens
    }

    /// Parses `expression`, or throws a ``FilterError`` that points at the problem.
    static func parse(_ expression: String) throws -> FilterExpression {
        var parser = FilterParser(expression: expression, tokens: try FilterLexer.tokens(expression))
        guard parser.current.kind != .end else {
            throw parser.error("the expression is empty; write a condition such as priority >= 3", at: parser.current)
        }
        return try parser.parseExpression().expression
    }

    private var current: FilterToken { tokens[index] }

    private mutating func advance() -> FilterToken {
        defer { if index < tokens.count - 1 { index += 1 } }
        return tokens[index]
    }

    private func isKeyword(_ word: String, offset: Int = 0) -> Bool {
        let position = min(index + offset, tokens.count - 1)
        return tokens[position].kind == .keyword(word)
    }

    private func error(_ message: String, at token: FilterToken) -> FilterError {
        FilterError(reason: .syntax(message), expression: expression, position: token.position, length: token.length)
    }

    /// A parsed expression, with what the checks on the groups around it need.
    private struct Node {
        var expression: FilterExpression
        /// The levels of parentheses and NOT its SQL opens, along its deepest path.
        var nesting: Int
        /// The operands of an `all` or `any` node, or the operand of a `not`, as nodes.
        var operands: [Node] = []

        init(_ predicate: FilterPredicate) {
            expression = .predicate(predicate)
            nesting = 0
        }

        private init(expression: FilterExpression, nesting: Int, operands: [Node]) {
            self.expression = expression
            self.nesting = nesting
            self.operands = operands
        }

        var isChain: Bool {
            switch expression {
            case .all, .any: true
            case .not, .predicate: false
            }
        }

        /// The node with the opposite truth, folding `not not x` into `x`.
        var negated: Node {
            switch expression {
            case .not: return operands[0]
            case .predicate(let predicate):
                if let opposite = predicate.negated { return Node(opposite) }
            case .all, .any: break
            }
            // A NOT parenthesizes anything but a column, which counts as one level.
            return Node(expression: .not(expression), nesting: nesting + 1, operands: [self])
        }

        /// `nodes` joined by and (`conjunction`) or by or, taking in the operands of nodes
        /// joined the same way.
        static func chain(_ nodes: [Node], conjunction: Bool) -> Node {
            if nodes.count == 1 { return nodes[0] }
            var operands: [Node] = []
            for node in nodes {
                switch node.expression {
                case .all where conjunction, .any where !conjunction: operands.append(contentsOf: node.operands)
                default: operands.append(node)
                }
            }
            // An operand joined the other way is parenthesized; a long chain is split into
            // parenthesized groups, one more level each time it is more than 16 times longer.
            var nesting = operands.map { $0.nesting + ($0.isChain ? 1 : 0) }.max() ?? 0
            var count = operands.count
            while count > SQLExpression.chainGroupSize {
                count = (count + SQLExpression.chainGroupSize - 1) / SQLExpression.chainGroupSize
                nesting += 1
            }
            let expressions = operands.map(\.expression)
            return Node(
                expression: conjunction ? .all(expressions) : .any(expressions), nesting: nesting, operands: operands)
        }
    }

    /// An open group: the whole expression, or a parenthesized one.
    private struct Group {
        /// The opening parenthesis; nil for the whole expression.
        var open: FilterToken?
        /// Whether an odd number of `not` came before the parenthesis.
        var negated: Bool
        /// The terms before the last `or`, each a chain of factors joined by `and`.
        var terms: [Node] = []
        /// The factors of the term being read.
        var factors: [Node] = []

        /// Closes the term being read, at an "or" or at the end of the group.
        mutating func endTerm() {
            terms.append(.chain(factors, conjunction: true))
            factors = []
        }
    }

    /// The whole expression, read with an explicit stack of open groups.
    private mutating func parseExpression() throws -> Node {
        var groups = [Group(open: nil, negated: false)]
        while true {
            // A factor: any number of "not", then a group or a predicate.
            var negated = false
            while isKeyword("not") {
                _ = advance()
                negated.toggle()
            }
            if current.kind == .leftParenthesis {
                let open = advance()
                if current.kind == .rightParenthesis { throw error("empty parentheses", at: current) }
                groups.append(Group(open: open, negated: negated))
                continue
            }
            var factor = Node(try predicate())
            if negated { factor = factor.negated }
            // After a factor: "and", "or", a closing parenthesis, or the end.
            while true {
                groups[groups.count - 1].factors.append(factor)
                if isKeyword("and") {
                    _ = advance()
                    break
                }
                if isKeyword("or") {
                    _ = advance()
                    groups[groups.count - 1].endTerm()
                    break
                }
                if groups.count > 1, current.kind == .rightParenthesis {
                    _ = advance()
                    factor = try close(groups.removeLast())
                    continue
                }
                if let open = groups.last?.open {
                    if current.kind == .end { throw error("this parenthesis is never closed", at: open) }
                    throw error("expected \")\", found \(current.description)", at: current)
                }
                guard current.kind == .end else {
                    throw error(
                        "expected \"and\", \"or\" or the end of the expression, found \(current.description)",
                        at: current)
                }
                return try close(groups.removeLast())
            }
        }
    }

    /// The node a group stands for, checked against ``maximumNesting``.
    private func close(_ group: Group) throws -> Node {
        var group = group
        group.endTerm()
        var node = Node.chain(group.terms, conjunction: false)
        if group.negated { node = node.negated }
        if node.nesting > Self.maximumNesting {
            let (position, length) =
                if let open = group.open { (open.position, open.length) } else { (0, expression.unicodeScalars.count) }
            throw FilterError(
                reason: .limit(
                    "this group is nested too deeply: SQLite reads at most \(Self.maximumNesting) levels of "
                        + "parentheses and \"not\" (a chain of more than \(SQLExpression.chainGroupSize) terms "
                        + "counts one more level, and one more for each 16 times longer); remove a level of nesting"),
                expression: expression, position: position, length: length)
        }
        return node
    }

    private mutating func predicate() throws -> FilterPredicate {
        let first = current
        let operand = try self.operand(after: nil)
        if case .comparison(let comparison) = current.kind {
            let op = advance()
            let right = try self.operand(after: op)
            switch (operand, right) {
            case (.column(let column), _):
                return .comparison(column, comparison, right)
            case (.value, .column(let column)):
                return .comparison(column, comparison.mirrored, operand)
            case (.value(let left), .value(let value)):
                throw FilterError(
                    reason: .syntax("a comparison needs a column on at least one side"),
                    expression: expression, position: left.position,
                    length: value.position + value.length - left.position)
            }
        }
        var negated = false
        if isKeyword("not"), tokens[min(index + 1, tokens.count - 1)].kind.isSuffixKeyword {
            _ = advance()
            negated = true
        }
        switch current.kind {
        case .keyword("like"), .keyword("glob"), .keyword("contains"):
            let op = advance()
            guard case .keyword(let word) = op.kind, let pattern = FilterExpression.Pattern(rawValue: word) else {
                break
            }
            let column = try requireColumn(operand, before: op)
            let patternToken = current
            guard case .literal(let literal) = patternToken.kind, case .text(let text) = literal.value else {
                throw error(
                    "expected a 'string' after \"\(word)\", found \(patternToken.description)", at: patternToken)
            }
            _ = advance()
            return .pattern(
                column, pattern,
                FilterExpression.Text(text: text, position: patternToken.position, length: patternToken.length),
                negated: negated)
        case .keyword("in"):
            let op = advance()
            let column = try requireColumn(operand, before: op)
            guard current.kind == .leftParenthesis else {
                throw error("expected \"(\" after \"in\", found \(current.description)", at: current)
            }
            _ = advance()
            var values: [FilterExpression.Value] = []
            if current.kind == .rightParenthesis { throw error("the list after \"in\" is empty", at: current) }
            while true {
                values.append(try literal(after: "in (…)"))
                if current.kind == .comma {
                    _ = advance()
                    continue
                }
                guard current.kind == .rightParenthesis else {
                    throw error("expected \",\" or \")\" in the list, found \(current.description)", at: current)
                }
                _ = advance()
                return .membership(column, values, negated: negated)
            }
        case .keyword("between"):
            let op = advance()
            let column = try requireColumn(operand, before: op)
            let low = try literal(after: "between")
            guard isKeyword("and") else {
                throw error("expected \"and\" between the two bounds, found \(current.description)", at: current)
            }
            _ = advance()
            let high = try literal(after: "between … and")
            return .range(column, low: low, high: high, negated: negated)
        case .keyword("is") where !negated:
            let op = advance()
            let column = try requireColumn(operand, before: op)
            var isNot = false
            if isKeyword("not") {
                _ = advance()
                isNot = true
            }
            guard case .literal(let literal) = current.kind, literal.kind == .null else {
                throw error(
                    "expected \"null\" after \"is\(isNot ? " not" : "")\", found \(current.description)", at: current)
            }
            _ = advance()
            return .nullTest(column, negated: isNot)
        default:
            break
        }
        switch operand {
        case .column(let column):
            return .truth(column)
        case .value:
            throw error(
                "a value alone is not a condition; compare it with a column, as in priority >= 3", at: first)
        }
    }

    private mutating func operand(after op: FilterToken?) throws -> FilterExpression.Operand {
        let token = current
        switch token.kind {
        case .identifier(let name):
            _ = advance()
            return .column(FilterExpression.ColumnName(name: name, position: token.position, length: token.length))
        case .path(let steps):
            _ = advance()
            return .column(
                FilterExpression.ColumnName(
                    name: steps.map(\.name).joined(separator: "."), position: token.position, length: token.length,
                    steps: steps))
        case .literal(let literal):
            _ = advance()
            return .value(FilterExpression.Value(literal: literal, position: token.position, length: token.length))
        default:
            if let op {
                throw error(
                    "expected a column or a value after \(op.description), found \(token.description)", at: token)
            }
            throw error("expected a column, a value, \"not\" or \"(\", found \(token.description)", at: token)
        }
    }

    private mutating func literal(after context: String) throws -> FilterExpression.Value {
        let token = current
        guard case .literal(let literal) = token.kind else {
            throw error("expected a value after \"\(context)\", found \(token.description)", at: token)
        }
        _ = advance()
        return FilterExpression.Value(literal: literal, position: token.position, length: token.length)
    }

    private func requireColumn(
        _ operand: FilterExpression.Operand, before op: FilterToken
    ) throws -> FilterExpression.ColumnName {
        switch operand {
        case .column(let column):
            return column
        case .value(let value):
            throw FilterError(
                reason: .syntax("\(op.description) needs a column on its left"),
                expression: expression, position: value.position, length: value.length)
        }
    }
}

extension FilterToken.Kind {
    /// Words that `not` can negate after an operand: `title not like '%x'`.
    var isSuffixKeyword: Bool {
        switch self {
        case .keyword("like"), .keyword("glob"), .keyword("contains"), .keyword("in"), .keyword("between"): true
        default: false
        }
    }
}
