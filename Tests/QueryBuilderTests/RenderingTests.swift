import Foundation
import SQLCore
import Testing

@testable import QueryBuilder

private struct Item: TableRecord, FetchableRow {
    static let tableName = "items"
    var id: Int64
    init(row: BorrowedRow) throws { id = try row["id"] }
}

/// The SQL text and arguments of one expression.
private func rendered(_ expression: SQLExpression) -> (String, [DatabaseValue]) {
    (expression.sql, expression.arguments)
}

@Suite("Query builder: rendered SQL")
struct RenderingTests {
    @Test("comparisons with values bind them")
    func comparisons() {
        #expect(rendered(Column("a") == 1) == (#""a" = ?"#, [1]))
        #expect(rendered(Column("a") != "x") == (#""a" <> ?"#, ["x"]))
        #expect(rendered(Column("a") < 1.5) == (#""a" < ?"#, [1.5]))
        #expect(rendered(Column("a") <= Int64.max) == (#""a" <= ?"#, [.integer(.max)]))
        #expect(rendered(Column("a") > false) == (#""a" > ?"#, [0]))
        #expect(rendered(Column("a") >= [UInt8]([1, 2])) == (#""a" >= ?"#, [.blob([1, 2])]))
    }

    @Test("== nil and != nil render IS NULL and IS NOT NULL, also for nil values")
    func nulls() {
        #expect(rendered(Column("a") == nil) == (#""a" IS NULL"#, []))
        #expect(rendered(Column("a") != nil) == (#""a" IS NOT NULL"#, []))
        let missing: Int? = nil
        #expect(rendered(Column("a") == missing) == (#""a" IS NULL"#, []))
        #expect(rendered(Column("a") != missing) == (#""a" IS NOT NULL"#, []))
        let present: Int? = 3
        #expect(rendered(Column("a") == present) == (#""a" = ?"#, [3]))
        // Ordering comparisons keep SQL's meaning: nothing is less than NULL.
        #expect(rendered(Column("a") < missing) == (#""a" < ?"#, [nil]))
    }

    @Test("comparisons between expressions")
    func columnComparisons() {
        #expect(rendered(Column("a") == Column("b")) == (#""a" = "b""#, []))
        #expect(rendered(Column("a") >= Column("b")) == (#""a" >= "b""#, []))
        #expect(rendered((Column("a") == 1) == (Column("b") == 2)) == (#"("a" = ?) = ("b" = ?)"#, [1, 2]))
    }

    @Test("AND, OR and NOT parenthesize only mixed connectives and compound operands")
    func logic() {
        let a = Column("a") == 1
        let b = Column("b") == 2
        let c = Column("c") == 3
        #expect(rendered(a && b) == (#""a" = ? AND "b" = ?"#, [1, 2]))
        #expect(rendered(a && b && c).0 == #""a" = ? AND "b" = ? AND "c" = ?"#)
        #expect(rendered(a || b && c).0 == #""a" = ? OR ("b" = ? AND "c" = ?)"#)
        #expect(rendered((a || b) && c).0 == #"("a" = ? OR "b" = ?) AND "c" = ?"#)
        #expect(rendered(!a).0 == #"NOT ("a" = ?)"#)
        #expect(rendered(!Column("done")).0 == #"NOT "done""#)
        #expect(rendered(!(a && b)).0 == #"NOT ("a" = ? AND "b" = ?)"#)
        #expect(rendered(!a && b).0 == #"NOT ("a" = ?) AND "b" = ?"#)
        #expect(rendered(Column("x") && Column("y")).0 == #""x" AND "y""#)
    }

    @Test("IN, BETWEEN, LIKE and GLOB")
    func predicates() {
        #expect(rendered(Column("a").in([1, 2, 3])) == (#""a" IN (?, ?, ?)"#, [1, 2, 3]))
        #expect(rendered(Column("a").in([Int]())) == (#""a" IN ()"#, []))
        #expect(rendered(Column("a").in(["x", nil] as [DatabaseValue])) == (#""a" IN (?, ?)"#, ["x", nil]))
        #expect(rendered(Column("a").between(1, 9)) == (#""a" BETWEEN ? AND ?"#, [1, 9]))
        #expect(rendered(Column("a").like("m%")) == (#""a" LIKE ?"#, ["m%"]))
        #expect(rendered(Column("a").glob("M*")) == (#""a" GLOB ?"#, ["M*"]))
        #expect(rendered((Column("a") == 1).in([0])).0 == #"("a" = ?) IN (?)"#)
    }

    @Test("contains and hasPrefix escape %, _ and the escape character")
    func escaping() {
        #expect(rendered(Column("t").contains("50%_off")) == (#""t" LIKE ? ESCAPE '\'"#, [#"%50\%\_off%"#]))
        #expect(rendered(Column("t").hasPrefix(#"a\b"#)) == (#""t" LIKE ? ESCAPE '\'"#, [#"a\\b%"#]))
        #expect(rendered(Column("t").contains("")).1 == ["%%"])
    }

    @Test("orderings: direction and null placement")
    func orderings() {
        func sql(_ terms: any SQLOrderingTerm...) -> String { Item.all().sort(terms).sql }
        #expect(sql(Column("a")) == #"SELECT * FROM "items" ORDER BY "a""#)
        #expect(sql(Column("a").asc, Column("b").desc) == #"SELECT * FROM "items" ORDER BY "a" ASC, "b" DESC"#)
        #expect(sql(Column("a").desc.nullsFirst) == #"SELECT * FROM "items" ORDER BY "a" DESC NULLS FIRST"#)
        #expect(sql(Column("a").nullsLast) == #"SELECT * FROM "items" ORDER BY "a" ASC NULLS LAST"#)
        #expect(sql(Column("a").asc.reversed) == #"SELECT * FROM "items" ORDER BY "a" DESC"#)
        #expect(sql((Column("a") == nil).desc) == #"SELECT * FROM "items" ORDER BY ("a" IS NULL) DESC"#)
    }

    @Test("requests: filters are ANDed, sort replaces, limit and offset are bound")
    func requests() {
        let request = Item.all()
            .filter(Column("done") == false)
            .filter(Column("priority") >= 2 || Column("priority") == nil)
            .sort(Column("title"))
            .sort(Column("created_at").desc)
            .limit(50, offset: 10)
        #expect(
            request.sql
                == #"SELECT * FROM "items" WHERE "done" = ? AND ("priority" >= ? OR "priority" IS NULL) ORDER BY "created_at" DESC LIMIT ? OFFSET ?"#
        )
        #expect(request.arguments == [0, 2, 50, 10])
        #expect(request.description.hasSuffix("[0, 2, 50, 10]"))
        #expect(Item.all().select(Column("id"), Column("title")).sql == #"SELECT "id", "title" FROM "items""#)
        #expect(Table("my table").filter(Column("id") == 1).sql == #"SELECT * FROM "my table" WHERE "id" = ?"#)
    }

    @Test("fetchOne and fetchCount SQL")
    func derivedSQL() {
        let request = Item.all().filter(Column("id") == 1)
        #expect(request.render(.one).sql == #"SELECT * FROM "items" WHERE "id" = ? LIMIT 1"#)
        #expect(
            request.limit(5, offset: 2).render(.one).sql == #"SELECT * FROM "items" WHERE "id" = ? LIMIT ? OFFSET ?"#)
        #expect(request.sort(Column("id")).render(.count).sql == #"SELECT count(*) FROM "items" WHERE "id" = ?"#)
        #expect(
            request.limit(5).render(.count).sql
                == #"SELECT count(*) FROM (SELECT * FROM "items" WHERE "id" = ? LIMIT ?)"#)
    }

    @Test("identifiers are quoted with embedded quotes doubled")
    func identifiers() {
        #expect(rendered(Column(#"a"b"#) == 1).0 == #""a""b" = ?"#)
        #expect(Table(#"x"; DROP TABLE items; --"#).all().sql == #"SELECT * FROM "x""; DROP TABLE items; --""#)
    }

    @Test("rendering is deterministic: same shape, same SQL; only the arguments change")
    func deterministic() {
        func request(_ id: Int, _ title: String) -> QueryInterfaceRequest<Item> {
            Item.all().filter(Column("id") > id && Column("title").contains(title)).sort(Column("id").desc).limit(3)
        }
        #expect(request(1, "a").sql == request(99, "b%").sql)
        #expect(request(1, "a").arguments != request(99, "b%").arguments)
        #expect(request(1, "a") == request(1, "a"))
        #expect(Set([request(1, "a"), request(1, "a"), request(2, "a")]).count == 2)
    }

    @Test("the PostgreSQL dialect: $n placeholders, ASCII-folded LIKE, boolean constants, SQLite's NULL order")
    func postgreSQLDialect() throws {
        let request = Table("items")
            .filter(
                Column("title").like("a%") && Column("notes").contains("50%") && Column("id").in([1, 2])
                    && Column("priority").between(1, 3) && Column("due") == nil
            )
            .sort(Column("priority").desc, Column("title"), Column("due").asc.nullsLast)
            .limit(10, offset: 20)
        let all = try request.rendered(.postgreSQL)
        let fold = "'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz'"
        #expect(
            all.sql
                == #"SELECT * FROM "items" WHERE translate("title"::text, \#(fold)) LIKE translate($1, \#(fold)) ESCAPE '' AND "#
                + #"translate("notes"::text, \#(fold)) LIKE translate($2, \#(fold)) ESCAPE '\' AND "id" IN ($3, $4)"#
                + #" AND "priority" BETWEEN $5 AND $6 AND "due" IS NULL"#
                + #" ORDER BY "priority" DESC NULLS LAST, "title" NULLS FIRST, "due" ASC NULLS LAST LIMIT $7 OFFSET $8"#
        )
        #expect(all.arguments == ["a%", "%50\\%%", 1, 2, 1, 3, 10, 20])
        #expect(all.unsupported == nil)
        // The same request in SQLite's dialect is unchanged.
        #expect(
            request.sql.contains(#""title" LIKE ? AND"#) && request.sql.hasSuffix(#"ASC NULLS LAST LIMIT ? OFFSET ?"#))

        let count = try request.rendered(.postgreSQL, count: true).sql
        #expect(count.hasPrefix("SELECT count(*) FROM (SELECT * FROM") && count.hasSuffix(#"OFFSET $8) AS "rows""#))
        #expect(
            try Table("items").filter(Column("id").in([Int]())).rendered(.postgreSQL).sql.hasSuffix(
                #"WHERE "id" = ANY('{}')"#))
        #expect(
            try Table("items").filter(Column("id").in([1]) || Column("id") < 0).rendered(.postgreSQL).sql.contains("$2")
        )
        #expect(try Table("items").filter(Column("title").glob("a*")).rendered(.postgreSQL).unsupported == "GLOB")
    }

    @Test("PostgreSQL: reals and 64-bit integers are typed, and LIKE's left operand is one whole atom")
    func postgreSQLTypedValuesAndLikeOperands() throws {
        let fold = "'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz'"
        let numbers = try Table("t").filter(
            Column("a") > 2.5 && Column("a") < 3_000_000_000 && Column("a") != 7 && Column("a").in([1.5, 2])
        ).rendered(.postgreSQL).sql
        #expect(
            numbers.hasSuffix(
                #""a" > $1::numeric AND "a" < $2::int8 AND "a" <> $3 AND "a" IN ($4::numeric, $5::numeric)"#))
        let lookup = SQLExpression.lookup(
            .column("name", of: "p"), in: "people", as: "p", keys: [("id", Column("owner").sqlExpression)])
        let likes = try Table("t").filter(
            (Column("a") == 1).like("1%") && lookup.contains("x") && SQLExpression.column("name", of: "t").like("%")
        ).rendered(.postgreSQL).sql
        #expect(likes.contains(#"translate(("a" = $1)::text, \#(fold)) LIKE translate($2, \#(fold)) ESCAPE ''"#))
        #expect(likes.contains(#"translate((SELECT "p"."name" FROM "people" AS "p" WHERE "p"."id" = "owner")::text, "#))
        #expect(likes.hasSuffix(#"translate("t"."name"::text, \#(fold)) LIKE translate($4, \#(fold)) ESCAPE ''"#))
    }
}
