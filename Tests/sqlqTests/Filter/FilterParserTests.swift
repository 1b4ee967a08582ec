import Testing

@testable import sqlq

@Suite("Filter parser", .onProcessThreads)
struct FilterParserTests {
    private func name(_ name: String, _ position: Int) -> FilterExpression.ColumnName {
        FilterExpression.ColumnName(name: name, position: position, length: name.count)
    }

    private func truth(_ column: String, _ position: Int) -> FilterExpression {
        .predicate(.truth(name(column, position)))
    }

    private func integer(_ value: Int64, _ position: Int, length: Int) -> FilterExpression.Value {
        FilterExpression.Value(
            literal: FilterLiteral(kind: .integer, value: .integer(value)), position: position, length: length)
    }

    private func text(_ text: String, _ position: Int, length: Int) -> FilterExpression.Text {
        FilterExpression.Text(text: text, position: position, length: length)
    }

    @Test("and binds tighter than or; not tighter than and")
    func precedence() throws {
        let parsed = try FilterParser.parse("a = 1 or not b and c")
        #expect(
            parsed
                == .any([
                    .predicate(.comparison(name("a", 0), .equal, .value(integer(1, 4, length: 1)))),
                    .all([.not(truth("b", 13)), truth("c", 19)]),
                ]))
    }

    @Test("Parentheses group")
    func parentheses() throws {
        let parsed = try FilterParser.parse("(a or b) and c")
        #expect(parsed == .all([.any([truth("a", 1), truth("b", 6)]), truth("c", 13)]))
    }

    @Test("Chains of one connective are one node, however they are grouped")
    func flatChains() throws {
        let expected = FilterExpression.any([truth("a", 2), truth("b", 7), truth("c", 14), truth("d", 19)])
        #expect(try FilterParser.parse("((a or b) or (c or d))") == expected)
        #expect(try FilterParser.parse("((a or b) or c) or (d)") != expected)
        #expect(
            try FilterParser.parse("a and (b and c) and ((d))")
                == .all([truth("a", 0), truth("b", 7), truth("c", 13), truth("d", 22)]))
        // A group with its own connective stays a group.
        #expect(
            try FilterParser.parse("a and (b or c)") == .all([truth("a", 0), .any([truth("b", 7), truth("c", 12)])]))
    }

    @Test("not folds: two cancel out, and predicates with a negated form take it")
    func negations() throws {
        #expect(try FilterParser.parse("not not a") == truth("a", 8))
        #expect(try FilterParser.parse("not (not (not a))") == .not(truth("a", 14)))
        #expect(try FilterParser.parse("not a is null") == .predicate(.nullTest(name("a", 4), negated: true)))
        #expect(
            try FilterParser.parse("not (a not in (1))")
                == .predicate(.membership(name("a", 5), [integer(1, 15, length: 1)], negated: false)))
        #expect(
            try FilterParser.parse("not not (a or b)") == .any([truth("a", 9), truth("b", 14)]))
        #expect(
            try FilterParser.parse("not (a or b)") == .not(.any([truth("a", 5), truth("b", 10)])))
    }

    @Test(
        "Every comparison operator, and their spellings",
        arguments: [
            ("=", FilterExpression.Comparison.equal), ("==", .equal), ("!=", .notEqual), ("<>", .notEqual),
            ("<", .less), ("<=", .lessOrEqual), (">", .greater), (">=", .greaterOrEqual),
        ])
    func comparisons(spelling: String, comparison: FilterExpression.Comparison) throws {
        let parsed = try FilterParser.parse("priority \(spelling) 3")
        #expect(
            parsed
                == .predicate(
                    .comparison(name("priority", 0), comparison, .value(integer(3, 10 + spelling.count, length: 1)))))
    }

    @Test("like, glob, contains, in, between and is null, with not")
    func predicates() throws {
        #expect(
            try FilterParser.parse("title not like 'a%'")
                == .predicate(.pattern(name("title", 0), .like, text("a%", 15, length: 4), negated: true)))
        #expect(
            try FilterParser.parse("title glob '*x'")
                == .predicate(.pattern(name("title", 0), .glob, text("*x", 11, length: 4), negated: false)))
        #expect(
            try FilterParser.parse("title CONTAINS 'x'")
                == .predicate(.pattern(name("title", 0), .contains, text("x", 15, length: 3), negated: false)))
        #expect(
            try FilterParser.parse("id in (1, 2)")
                == .predicate(
                    .membership(name("id", 0), [integer(1, 7, length: 1), integer(2, 10, length: 1)], negated: false)))
        #expect(
            try FilterParser.parse("id not between 1 and 2")
                == .predicate(
                    .range(
                        name("id", 0), low: integer(1, 15, length: 1), high: integer(2, 21, length: 1), negated: true)))
        #expect(try FilterParser.parse("due is null") == .predicate(.nullTest(name("due", 0), negated: false)))
        #expect(try FilterParser.parse("due IS NOT NULL") == .predicate(.nullTest(name("due", 0), negated: true)))
    }

    @Test("between's and is not the connective")
    func betweenAnd() throws {
        let parsed = try FilterParser.parse("a between 1 and 2 and b")
        #expect(
            parsed
                == .all([
                    .predicate(
                        .range(
                            name("a", 0), low: integer(1, 10, length: 1), high: integer(2, 16, length: 1),
                            negated: false)),
                    truth("b", 22),
                ]))
    }

    @Test("A value on the left of a comparison is mirrored to the right")
    func literalOnTheLeft() throws {
        #expect(
            try FilterParser.parse("3 < priority")
                == .predicate(.comparison(name("priority", 4), .greater, .value(integer(3, 0, length: 1)))))
    }

    @Test("Reserved words can be column names in double quotes")
    func quotedNames() throws {
        #expect(
            try FilterParser.parse(#""order" = 1"#)
                == .predicate(
                    .comparison(
                        FilterExpression.ColumnName(name: "order", position: 0, length: 7), .equal,
                        .value(integer(1, 10, length: 1)))))
        #expect(
            try FilterParser.parse(#""a""b""#)
                == .predicate(.truth(FilterExpression.ColumnName(name: "a\"b", position: 0, length: 6))))
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
            ("3 = 4", 0, "a comparison needs a column on at least one side"),
            ("(a = 1) )", 8, "expected \"and\", \"or\" or the end of the expression, found \")\""),
            ("((a = 1)", 0, "this parenthesis is never closed"),
            ("(a = 1 b)", 7, "expected \")\", found the column name b"),
            ("not", 3, "expected a column, a value, \"not\" or \"(\", found the end of the expression"),
            ("a and ()", 7, "empty parentheses"),
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
