import SQLCore
import Testing

@testable import QueryBuilder

@Suite("Query builder: full-text search")
struct FullTextSearchRenderingTests {
    @Test("each mode quotes every token of the text")
    func modes() throws {
        let text = #"  swift "NEAR(a b)" -x ^y: AND*  "#
        #expect(
            try FTS5Pattern(matching: text).rawPattern
                == #""swift" AND "NEAR" AND "a" AND "b" AND "x" AND "y" AND "AND""#)
        #expect(try FTS5Pattern(matching: "a OR b", mode: .anyToken).rawPattern == #""a" OR "OR" OR "b""#)
        #expect(try FTS5Pattern(matching: "swi conc", mode: .allPrefixes).rawPattern == #""swi"* AND "conc"*"#)
        #expect(try FTS5Pattern(matching: "new-york city", mode: .phrase).rawPattern == #""new york city""#)
        #expect(try FTS5Pattern(matching: "cafe\u{301} naïve").rawPattern == "\"cafe\u{301}\" AND \"naïve\"")
    }

    @Test("text with no letter or digit is refused with a typed error")
    func noTokens() {
        for text in ["", "   ", #"""#, "*", "-", "()", #"" * ^ : + -"#] {
            #expect(throws: FTS5PatternError(kind: .noTokens, pattern: text)) {
                try FTS5Pattern(matching: text, mode: .allPrefixes)
            }
        }
        let error = FTS5PatternError(kind: .noTokens, pattern: "*'")
        #expect(error.description == "nothing to search for in '*''': type at least one letter or digit")
    }

    @Test("quoting doubles double quotes")
    func quoting() {
        #expect(FTS5Pattern.quoted(#"a"b"#) == #""a""b""#)
    }

    @Test("a search on the index binds the pattern and quotes the names")
    func onIndex() throws {
        let search = FullTextSearch(try FTS5Pattern(matching: "hello"), index: #"my "fts""#)
        let request = Table(#"my "fts""#).filter(search)
            .select(Column("title"), search.snippet(column: 1, tokens: 8), search.highlight(column: 0))
            .sort(search.bm25(weights: 10, 1))
        #expect(
            request.sql
                == #"SELECT "title", snippet("my ""fts""", ?, ?, ?, ?, ?), highlight("my ""fts""", ?, ?, ?) FROM "my ""fts""" WHERE "my ""fts""" MATCH ? ORDER BY bm25("my ""fts""", ?, ?)"#
        )
        #expect(
            request.arguments == [1, "<b>", "</b>", "…", 8, 0, "<b>", "</b>", #""hello""#, 10.0, 1.0])
        // The index's name is not a column of the table: schema checks leave it out.
        #expect(request.identifiers.columns == ["title"])
    }

    @Test("a search on the content table goes through the index's rowids")
    func onContent() throws {
        let index = FullTextIndex("docs_fts", table: "docs", columns: ["title"], contentRowID: "id")
        let search = index.search(try FTS5Pattern(matching: "x"))
        let request = Table("docs").filter(search && Column("n") > 1).sort(search.bm25())
        #expect(
            request.sql
                == #"SELECT * FROM "docs" WHERE "docs"."id" IN (SELECT "docs_fts"."rowid" FROM "docs_fts" WHERE "docs_fts" MATCH ?) AND "n" > ? ORDER BY (WITH "docs_fts matches"("key", "value") AS MATERIALIZED (SELECT "docs_fts"."rowid", bm25("docs_fts") FROM "docs_fts" WHERE "docs_fts" MATCH ?) SELECT "value" FROM "docs_fts matches" WHERE "key" = "docs"."id")"#
        )
        #expect(request.arguments == [#""x""#, 1, #""x""#])
        #expect(request.identifiers.columns == ["n"])
        // The matches never take the content table's name, which the lookup names the outer row by.
        let clash = FullTextSearch(try FTS5Pattern(matching: "x"), index: "f", contentTable: "F Matches")
        #expect(
            Table("F Matches").sort(clash.bm25()).sql.contains(#"FROM "f matches_" WHERE "key" = "F Matches"."rowid")"#)
        )
    }

    @Test("PostgreSQL refuses a search when it renders")
    func postgreSQLRefuses() throws {
        let search = FullTextSearch(try FTS5Pattern(matching: "x"), index: "docs_fts")
        for request in [
            Table("docs_fts").filter(search), Table("docs_fts").sort(search.bm25()),
            Table("docs_fts").select(search.snippet()), Table("docs_fts").select(search.highlight(column: 0)),
        ] {
            let rendered = try request.rendered(.postgreSQL)
            #expect(rendered.unsupported == "FTS5 full-text search (MATCH, bm25, snippet, highlight)")
        }
        #expect(try Table("docs").filter(Column("a") == 1).rendered(.postgreSQL).unsupported == nil)
    }

    @Test("the index's SQL quotes every name and literal")
    func indexSQL() {
        let index = FullTextIndex(#"f"ts"#, table: "it's", columns: ["a b"], contentRowID: "id", tokenize: "porter")
        #expect(
            index.creationSQL == #"""
                CREATE VIRTUAL TABLE "f""ts" USING fts5("a b", content='it''s', content_rowid='id', tokenize='porter');
                CREATE TRIGGER "f""ts_ai" AFTER INSERT ON "it's" BEGIN
                  INSERT INTO "f""ts"(rowid, "a b") VALUES (new."id", new."a b");
                END;
                CREATE TRIGGER "f""ts_ad" AFTER DELETE ON "it's" BEGIN
                  INSERT INTO "f""ts"("f""ts", rowid, "a b") VALUES ('delete', old."id", old."a b");
                END;
                CREATE TRIGGER "f""ts_au" AFTER UPDATE ON "it's" BEGIN
                  INSERT INTO "f""ts"("f""ts", rowid, "a b") VALUES ('delete', old."id", old."a b");
                  INSERT INTO "f""ts"(rowid, "a b") VALUES (new."id", new."a b");
                END;
                INSERT INTO "f""ts"("f""ts") VALUES ('rebuild');
                """#)
    }
}
