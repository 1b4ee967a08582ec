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
struct FilterParser {
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
        let result = try parser.disjunction()
        guard parser.current.kind == .end else {
            throw parser.error(
                "expected \"and\", \"or\" or the end of the expression, found \(parser.current.description)",
                at: parser.current)
        }
        return result
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

    private mutating func disjunction() throws -> FilterExpression {
        var result = try conjunction()
        while isKeyword("or") {
            _ = advance()
            result = .or(result, try conjunction())
        }
        return result
    }

    private mutating func conjunction() throws -> FilterExpression {
        var result = try factor()
        while isKeyword("and") {
            _ = advance()
            result = .and(result, try factor())
        }
        return result
    }

    private mutating func factor() throws -> FilterExpression {
        if isKeyword("not") {
            _ = advance()
            return .not(try factor())
        }
        if current.kind == .leftParenthesis {
            let open = advance()
            if current.kind == .rightParenthesis { throw error("empty parentheses", at: current) }
            let inner = try disjunction()
            guard current.kind == .rightParenthesis else {
                if current.kind == .end { throw error("this parenthesis is never closed", at: open) }
                throw error("expected \")\", found \(current.description)", at: current)
            }
            _ = advance()
            return inner
        }
        return try predicate()
    }

    private mutating func predicate() throws -> FilterExpression {
        let first = current
        let operand = try self.operand(after: nil)
        if case .comparison(let comparison) = current.kind {
            let op = advance()
            return .comparison(operand, comparison, try self.operand(after: op))
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
            try requireColumn(operand, before: op)
            let patternToken = current
            guard case .literal(let literal) = patternToken.kind, literal.kind == .text else {
                throw error(
                    "expected a 'string' after \"\(word)\", found \(patternToken.description)", at: patternToken)
            }
            _ = advance()
            return .pattern(
                operand, pattern, .literal(literal, position: patternToken.position, length: patternToken.length),
                negated: negated)
        case .keyword("in"):
            let op = advance()
            try requireColumn(operand, before: op)
            guard current.kind == .leftParenthesis else {
                throw error("expected \"(\" after \"in\", found \(current.description)", at: current)
            }
            _ = advance()
            var values: [FilterExpression.Operand] = []
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
                return .membership(operand, values, negated: negated)
            }
        case .keyword("between"):
            let op = advance()
            try requireColumn(operand, before: op)
            let low = try literal(after: "between")
            guard isKeyword("and") else {
                throw error("expected \"and\" between the two bounds, found \(current.description)", at: current)
            }
            _ = advance()
            let high = try literal(after: "between … and")
            return .range(operand, low: low, high: high, negated: negated)
        case .keyword("is") where !negated:
            let op = advance()
            try requireColumn(operand, before: op)
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
            return .nullTest(operand, negated: isNot)
        default:
            break
        }
        switch operand {
        case .column(let name, let position, let length):
            return .column(name: name, position: position, length: length)
        case .literal:
            throw error(
                "a value alone is not a condition; compare it with a column, as in priority >= 3", at: first)
        }
    }

    private mutating func operand(after op: FilterToken?) throws -> FilterExpression.Operand {
        let token = current
        switch token.kind {
        case .identifier(let name):
            _ = advance()
            return .column(name: name, position: token.position, length: token.length)
        case .literal(let literal):
            _ = advance()
            return .literal(literal, position: token.position, length: token.length)
        default:
            if let op {
                throw error(
                    "expected a column or a value after \(op.description), found \(token.description)", at: token)
            }
            throw error("expected a column, a value, \"not\" or \"(\", found \(token.description)", at: token)
        }
    }

    private mutating func literal(after context: String) throws -> FilterExpression.Operand {
        let token = current
        guard case .literal(let literal) = token.kind else {
            throw error("expected a value after \"\(context)\", found \(token.description)", at: token)
        }
        _ = advance()
        return .literal(literal, position: token.position, length: token.length)
    }

    private func requireColumn(_ operand: FilterExpression.Operand, before op: FilterToken) throws {
        if case .literal(_, let position, let length) = operand {
            throw FilterError(
                reason: .syntax("\(op.description) needs a column on its left"),
                expression: expression, position: position, length: length)
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
