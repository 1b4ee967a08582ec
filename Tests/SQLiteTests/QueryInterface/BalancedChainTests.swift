import Testing

@testable import SQLite

@Suite("Query builder: balanced and/or chains")
struct BalancedChainTests {
    @Test("Up to 16 operands make one flat chain; none is true for all, false for any")
    func shortChains() {
        #expect(SQLExpression.all([]).sql == "1")
        #expect(SQLExpression.any([]).sql == "0")
        #expect(SQLExpression.all([Column("a") == 1]).sql == #""a" = ?"#)
        let three = SQLExpression.any([Column("a") == 1, Column("b") && Column("c"), !Column("d")])
        #expect(three.sql == #""a" = ? OR ("b" AND "c") OR NOT "d""#)
        #expect(three.arguments == [1])
        let sixteen = SQLExpression.all((1...16).map { Column("a") != $0 })
        #expect(sixteen.sql == Array(repeating: #""a" <> ?"#, count: 16).joined(separator: " AND "))
    }

    @Test("Longer chains are parenthesized groups of 16, in order")
    func groups() {
        let chain = SQLExpression.any((1...17).map { Column("a") == $0 })
        let group = Array(repeating: #""a" = ?"#, count: 16).joined(separator: " OR ")
        #expect(chain.sql == "(" + group + #") OR ("a" = ?)"#)
        #expect(chain.arguments == (1...17).map { .integer(Int64($0)) })
    }

    @Test("Thousands of operands run on SQLite, which refuses the same chain written flat")
    func longChains() throws {
        let db = try Database()
        try db.executeScript(
            "CREATE TABLE t(id INTEGER PRIMARY KEY); WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300) INSERT INTO t SELECT i FROM n"
        )
        let terms = (1...4000).map { Column("id") == $0 }
        let any = SQLExpression.any(terms)
        #expect(try Table("t").filter(any).fetchCount(db) == 300)
        let all = SQLExpression.all((1...5000).map { Column("id") != $0 % 200 })
        #expect(try Table("t").filter(all).fetchCount(db) == 101)
        let flat = terms[..<2000].dropFirst().reduce(terms[0]) { $0 || $1 }
        #expect(throws: SQLiteError.self) { try Table("t").filter(flat).fetchCount(db) }
    }
}
