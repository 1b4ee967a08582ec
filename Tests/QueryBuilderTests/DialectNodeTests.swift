import SQLCore
import Testing

@testable import QueryBuilder

/// What the dialects differ on is a node of the builder (a boolean constant, an empty list, a
/// pattern match, full-text search), which each renders its own way; no rendering reads SQL text.
@Suite("Query builder: the dialects render nodes, not text")
struct DialectNodeTests {
    static let fold = "'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz'"

    static func whereClause(_ filter: SQLExpression, _ dialect: SQLDialect) throws -> String {
        let sql = try Table("t").filter(filter).rendered(dialect).sql
        return String(try #require(sql.split(separator: " WHERE ", maxSplits: 1).last))
    }

    @Test("The empty AND and OR are true and false: 1 and 0 on SQLite, TRUE and FALSE on PostgreSQL")
    func booleans() throws {
        #expect(try Self.whereClause(.all([]), .sqlite) == "1")
        #expect(try Self.whereClause(.any([]), .sqlite) == "0")
        #expect(try Self.whereClause(.all([]), .postgreSQL) == "TRUE")
        #expect(try Self.whereClause(SQLExpression.any([]) || Column("a") == 1, .postgreSQL) == #"FALSE OR "a" = $1"#)
    }

    @Test("A membership test in the empty list: IN () on SQLite, = ANY('{}') on PostgreSQL, also inside others")
    func emptyLists() throws {
        let filter = !Column("a").in([Int]()) && (Column("b") == 1).in([String]())
        #expect(try Self.whereClause(filter, .sqlite) == #"NOT ("a" IN ()) AND ("b" = ?) IN ()"#)
        #expect(try Self.whereClause(filter, .postgreSQL) == #"NOT ("a" = ANY('{}')) AND ("b" = $1) = ANY('{}')"#)
    }

    @Test("A LIKE folds both whole operands on PostgreSQL, however deep it stands in the filter")
    func patternMatches() throws {
        let filter = !(Column("a") == 1).like("1%") || (Column("b").hasPrefix("x_") && Column("c").glob("*"))
        #expect(
            try Self.whereClause(filter, .sqlite)
                == #"NOT (("a" = ?) LIKE ?) OR ("b" LIKE ? ESCAPE '\' AND "c" GLOB ?)"#)
        let onPostgreSQL = try Table("t").filter(filter).rendered(.postgreSQL)
        #expect(
            String(onPostgreSQL.sql.split(separator: " WHERE ").last!)
                == #"NOT (translate(("a" = $1)::text, \#(Self.fold)) LIKE translate($2, \#(Self.fold)) ESCAPE '') OR "#
                + #"(translate("b"::text, \#(Self.fold)) LIKE translate($3, \#(Self.fold)) ESCAPE '\' AND "c" GLOB $4)"#
        )
        #expect(onPostgreSQL.unsupported == "GLOB")
    }

    @Test("A LIKE kept inline and the same LIKE built from segments are one value, equal and hashed alike")
    func inlineAndBuiltMatchesAreEqual() {
        let inline = Column("a").like("x%")
        let built = SQLExpression(
            SQLFragment([.patternMatch(SQLPatternMatch(.like, operand: [.identifier("a")], pattern: [.binding("x%")]))]
            ),
            precedence: .comparison)
        #expect(inline == built)
        #expect(inline.hashValue == built.hashValue)
        #expect(Set([inline, built, Column("a").glob("x%"), Column("a").contains("x")]).count == 3)
    }

    @Test("The columns a pattern match reads are checked against the schema like any other")
    func patternMatchIdentifiers() {
        let filter = (Column("a") == Column("b")).like("1%") && Column("c").contains("x") && Column("d") == 1
        #expect(filter.fragment.identifiers == ["a", "b", "c", "d"])
    }

    @Test(
        "The row filter reads the nodes: an empty list is an exact test, a LIKE is undecided but its columns must be known"
    )
    func rowFilter() {
        let columns = ["a", "b"]
        let index: (String) -> Int? = { columns.firstIndex(of: $0) }
        #expect(RowFilterCompiler.compile(Column("a").in([Int]()), columnIndex: index) == .inList(column: 0, []))
        #expect(RowFilterCompiler.compile(.all([]), columnIndex: index) == .truth(true))
        #expect(
            RowFilterCompiler.compile(Column("a").like("x") && Column("b") == 1, columnIndex: index)
                == .and([.unknown, .comparison(column: 1, .equal, 1)]))
        #expect(
            RowFilterCompiler.compile(Column("nosuch").contains("x") && Column("b") == 1, columnIndex: index) == nil)
        let lookup = SQLExpression.lookup(
            .column("name", of: "p"), in: "p", as: "p", keys: [("id", Column("a").sqlExpression)])
        #expect(RowFilterCompiler.compile(lookup.like("x") && Column("b") == 1, columnIndex: index) == nil)
    }
}
