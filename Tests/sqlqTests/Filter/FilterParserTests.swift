import Testing

@testable import sqlq

@Suite("Filter parser")
struct FilterParserTests {
    private func column(_ name: String, _ position: Int) -> FilterExpression.Operand {
        .column(name: name, position: position, length: name.count)
    }

    private func integer(_ value: Int64, _ position: Int, length: Int) -> FilterExpression.Operand {
        .literal(FilterLiteral(kind: .integer, value: .integer(value)), position: position, length: length)
    }

    @Test("and binds tighter than or; not tighter than and")
    func precedence() throws {
        let parsed = try FilterParser.parse("a = 1 or not b and c")
        #expect(
            parsed
                == .or(
                    .comparison(column("a", 0), .equal, integer(1, 4, length: 1)),
                    .and(.not(.column(name: "b", position: 13, length: 1)), .column(name: "c", position: 19, length: 1))
                ))
    }

    @Test("Parentheses group")
    func parentheses() throws {
        let parsed = try FilterParser.parse("(a or b) and c")
        #expect(
            parsed
                == .and(
                    .or(.column(name: "a", position: 1, length: 1), .column(name: "b", position: 6, length: 1)),
                    .column(name: "c", position: 13, length: 1)))
    }

    @Test(
        "Every comparison operator, and their spellings",
        arguments: [
            ("=", FilterExpression.Comparison.equal), ("==", .equal), ("!=", .notEqual), ("<>", .notEqual),
            ("<", .less), ("<=", .lessOrEqual), (">", .greater), (">=", .greaterOrEqual),
        ])
    func comparisons(spelling: String, comparison: FilterExpression.Comparison) throws {
        let parsed = try FilterParser.parse("priority \(spelling) 3")
        #expect(parsed == .comparison(column("priority", 0), comparison, integer(3, 10 + spelling.count, length: 1)))
    }

    @Test("like, glob, contains, in, between and is null, with not")
    func predicates() throws {
        #expect(
            try FilterParser.parse("title not like 'a%'")
                == .pattern(
                    column("title", 0), .like,
                    .literal(FilterLiteral(kind: .text, value: .text("a%")), position: 15, length: 4), negated: true))
        #expect(
            try FilterParser.parse("title glob '*x'")
                == .pattern(
                    column("title", 0), .glob,
                    .literal(FilterLiteral(kind: .text, value: .text("*x")), position: 11, length: 4), negated: false))
        #expect(
            try FilterParser.parse("title CONTAINS 'x'")
                == .pattern(
                    column("title", 0), .contains,
                    .literal(FilterLiteral(kind: .text, value: .text("x")), position: 15, length: 3), negated: false))
        #expect(
            try FilterParser.parse("id in (1, 2)")
                == .membership(
                    column("id", 0), [integer(1, 7, length: 1), integer(2, 10, length: 1)], negated: false))
        #expect(
            try FilterParser.parse("id not between 1 and 2")
                == .range(
                    column("id", 0), low: integer(1, 15, length: 1), high: integer(2, 21, length: 1), negated: true))
        #expect(try FilterParser.parse("due is null") == .nullTest(column("due", 0), negated: false))
        #expect(try FilterParser.parse("due IS NOT NULL") == .nullTest(column("due", 0), negated: true))
    }

    @Test("between's and is not the connective")
    func betweenAnd() throws {
        let parsed = try FilterParser.parse("a between 1 and 2 and b")
        #expect(
            parsed
                == .and(
                    .range(
                        column("a", 0), low: integer(1, 10, length: 1), high: integer(2, 16, length: 1), negated: false),
                    .column(name: "b", position: 22, length: 1)))
    }

    @Test("A value may stand on the left of a comparison")
    func literalOnTheLeft() throws {
        #expect(
            try FilterParser.parse("3 < priority")
                == .comparison(integer(3, 0, length: 1), .less, column("priority", 4)))
    }

    @Test("Reserved words can be column names in double quotes")
    func quotedNames() throws {
        #expect(
            try FilterParser.parse(#""order" = 1"#)
                == .comparison(
                    .column(name: "order", position: 0, length: 7), .equal, integer(1, 10, length: 1)))
        #expect(try FilterParser.parse(#""a""b""#) == .column(name: "a\"b", position: 0, length: 6))
    }

    @Test(
        "Syntax errors point at the offending token",
        arguments: [
            ("priority >=", 11, "expected a column or a value after \">=\", found the end of the expression"),
            ("priority >= 3 and", 17, "expected a column, a value, \"not\" or \"(\", found the end of the expression"),
            ("(a = 1", 0, "this parenthesis is never closed"),
            ("a = 1 b", 6, "expected \"and\", \"or\" or the end of the expression, found the column name b"),
            ("title like 3", 11, "expected a 'string' after \"like\", found the number 3"),
            ("id in ()", 7, "the list after \"in\" is empty"),
            ("id in (1 2)", 9, "expected \",\" or \")\" in the list, found the number 2"),
            ("id between 1 or 2", 13, "expected \"and\" between the two bounds, found \"or\""),
            ("due is 3", 7, "expected \"null\" after \"is\", found the number 3"),
            ("3", 0, "a value alone is not a condition; compare it with a column, as in priority >= 3"),
            ("'x' like 'y'", 0, "\"like\" needs a column on its left"),
            ("", 0, "the expression is empty; write a condition such as priority >= 3"),
            ("a ! b", 2, "\"!\" is not an operator; write != for \"not equal\" or not for negation"),
            ("a = $1", 4, "unexpected character \"$\""),
        ])
    func syntaxErrors(expression: String, position: Int, message: String) {
        #expect {
            try FilterParser.parse(expression)
        } throws: { error in
            guard let error = error as? FilterError, case .syntax(let text) = error.reason else { return false }
            return error.position == position && text == message
        }
    }

    @Test("The message quotes the expression with a caret under the problem")
    func caret() {
        do {
            _ = try FilterParser.parse("priority >= 3 and and")
            Issue.record("expected a syntax error")
        } catch let error as FilterError {
            let lines = error.description.split(separator: "\n").map(String.init)
            #expect(
                lines == [
                    "--where: expected a column, a value, \"not\" or \"(\", found \"and\"",
                    "  priority >= 3 and and",
                    "                    ^^^",
                ])
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }
}
