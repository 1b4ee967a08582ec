import Testing

@testable import SQLite

@Suite("Query builder: lookups in other tables")
struct SQLLookupTests {
    private func makeDatabase() throws -> Database {
        let db = try Database(path: ":memory:")
        try db.executeScript(
            """
            CREATE TABLE "he""roes"(id INTEGER PRIMARY KEY, name TEXT, mentor INTEGER REFERENCES "he""roes");
            CREATE TABLE lines(id INTEGER PRIMARY KEY, hero INTEGER REFERENCES "he""roes", body TEXT);
            INSERT INTO "he""roes" VALUES (1, 'lina', NULL), (2, 'axe', 1);
            INSERT INTO lines VALUES (1, 1, 'hi'), (2, 2, 'yo'), (3, NULL, 'none');
            """)
        return db
    }

    @Test("a lookup renders a quoted, aliased scalar subquery with its values bound, and runs")
    func rendersAndRuns() throws {
        let db = try makeDatabase()
        let name = SQLExpression.lookup(
            .column("name", of: "h"), in: "he\"roes", as: "h", keys: [("id", .column("hero", of: "lines"))])
        #expect(
            name.sql == #"(SELECT "h"."name" FROM "he""roes" AS "h" WHERE "h"."id" = "lines"."hero")"#)
        let request = Table("lines").filter(name == "axe").select(Column("body"), name.named("hero.name"))
        #expect(request.arguments == [.text("axe")])
        let rows = try request.fetchAll(db)
        #expect(try rows.map { try $0["body"] as String } == ["yo"])
        #expect(try rows.map { try $0["hero.name"] as String } == ["axe"])
        // A null key reads null: every row stays.
        #expect(try Table("lines").filter(name == nil).fetchCount(db) == 1)
    }

    @Test("lookups nest outwards, each referring to the alias around it, also into the same table")
    func nests() throws {
        let db = try makeDatabase()
        let inner = SQLExpression.lookup(
            .column("name", of: "m"), in: "he\"roes", as: "m", keys: [("id", .column("mentor", of: "h"))])
        let mentor = SQLExpression.lookup(inner, in: "he\"roes", as: "h", keys: [("id", .column("hero", of: "lines"))])
        let bodies = try Table("lines").filter(mentor == "lina").select(Column("body")).asRequest(of: String.self)
            .fetchAll(db)
        #expect(bodies == ["yo"])
    }

    @Test("a membership in another table's keys renders as IN over a subquery, for one key or several")
    func membership() throws {
        let db = try makeDatabase()
        let named = SQLExpression.membership(
            of: [.column("hero", of: "lines")], inKeys: ["id"], of: "he\"roes", as: "h",
            where: SQLExpression.column("name", of: "h") == "axe")
        #expect(named.sql == #""lines"."hero" IN (SELECT "h"."id" FROM "he""roes" AS "h" WHERE "h"."name" = ?)"#)
        #expect(named.arguments == [.text("axe")])
        let bodies = try Table("lines").filter(named).select(Column("body")).asRequest(of: String.self).fetchAll(db)
        #expect(bodies == ["yo"])
        let pairs = SQLExpression.membership(
            of: [.column("id", of: "lines"), .column("hero", of: "lines")], inKeys: ["id", "mentor"], of: "he\"roes",
            as: "h", where: SQLExpression.column("name", of: "h") == "axe")
        #expect(pairs.sql.hasPrefix(#"("lines"."id", "lines"."hero") IN (SELECT "h"."id", "h"."mentor" FROM"#))
        #expect(try Table("lines").filter(pairs).fetchCount(db) == 0)
    }

    @Test("checkSchema checks the request's own names and leaves the lookup's to the caller")
    func schemaCheck() throws {
        let db = try makeDatabase()
        let name = SQLExpression.lookup(
            .column("name", of: "h"), in: "he\"roes", as: "h", keys: [("id", .column("hero", of: "lines"))])
        try Table("lines").filter(name == "x").checkSchema(db)
        #expect(throws: SchemaError.self) {
            try Table("lines").filter(name == "x" && Column("bdy") == 1).checkSchema(db)
        }
    }
}
