import SQLite
import Testing

@testable import sqlq

@Suite("Full-text indexes read from the schema", .onProcessThreads)
struct SearchIndexTests {
    @Test("content= and content_rowid= are read as FTS5 reads them, from the SQL SQLite stores")
    func options() throws {
        let db = try Database()
        try db.executeScript(
            """
            CREATE TABLE notes(id INTEGER PRIMARY KEY, t TEXT);
            CREATE VIRTUAL TABLE a USING fts5(t, c='notes', content_r = id);
            CREATE VIRTUAL TABLE "b, (x" USING FTS5 ( "t" /* , content=x */ , CONTENT = [No"tes] -- c
            , content_rowid="i""d");
            CREATE VIRTUAL TABLE IF NOT EXISTS main.c USING fts5(t, content='');
            CREATE VIRTUAL TABLE d USING fts5("content=x", content="NOTES", tokenize = 'porter unicode61');
            CREATE VIRTUAL TABLE e USING fts5(t, content=`it's`, prefix='2,3');
            CREATE VIRTUAL TABLE f USING fts5(t);
            CREATE VIRTUAL TABLE g USING fts4(t, content='notes');
            CREATE VIRTUAL TABLE h USING rtree(id, x0, x1);
            """)
        let indexes = try SearchIndex.all(in: db)
        #expect(
            indexes == [
                SearchIndex(name: "a", contentTable: "notes", contentRowID: "id"),
                SearchIndex(name: "b, (x", contentTable: #"No"tes"#, contentRowID: #"i"d"#),
                SearchIndex(name: "c", contentTable: nil, contentRowID: "rowid"),
                SearchIndex(name: "d", contentTable: "NOTES", contentRowID: "rowid"),
                SearchIndex(name: "e", contentTable: "it's", contentRowID: "rowid"),
                SearchIndex(name: "f", contentTable: nil, contentRowID: "rowid"),
            ])
        // The first by name whose content is the table, compared as SQLite compares names.
        #expect(try SearchIndex.find(for: "notes", in: db)?.name == "a")
        #expect(try SearchIndex.find(for: "Notes", in: db)?.name == "a")
        // An FTS5 table is searched itself.
        #expect(try SearchIndex.find(for: "f", in: db)?.name == "f")
        #expect(try SearchIndex.find(for: "B, (X", in: db)?.name == "b, (x")
        #expect(try SearchIndex.find(for: "h", in: db) == nil)
        #expect(try SearchIndex.find(for: "nötes", in: db) == nil)
    }

    @Test("Module arguments split where SQLite splits them")
    func arguments() {
        func split(_ sql: String) -> [String]? { SearchIndex.moduleArguments(Array(sql.utf8))?.arguments }
        #expect(
            split("CREATE VIRTUAL TABLE t USING fts5(a, 'b,c', [d)e], f(g, h), \"i\"\"j\")") == [
                "a", "'b,c'", "[d)e]", "f(g, h)", #""i""j""#,
            ])
        #expect(split("CREATE VIRTUAL TABLE t USING fts5( a -- x, y\n , /* ) */ b )") == ["a", "b"])
        #expect(split("CREATE VIRTUAL TABLE t USING fts5") == [])
        #expect(split("CREATE VIRTUAL TABLE t USING fts5(a, 'b") == nil)
        #expect(split("CREATE TABLE t(a)") == nil)
        #expect(SearchIndex.option(Array("content = 'a''b'".utf8)).map { [$0.key, $0.value] } == ["content", "a'b"])
        #expect(SearchIndex.option(Array("CONTENT=".utf8)).map { [$0.key, $0.value] } == ["content", ""])
        #expect(SearchIndex.option(Array("'content'='x'".utf8)) == nil)
        #expect(SearchIndex.option(Array("title UNINDEXED".utf8)) == nil)
    }

    @Test("Words are quoted for the shell only when they need it")
    func shellWords() {
        #expect(SearchIndex.shellWord("notes_fts") == "notes_fts")
        #expect(SearchIndex.shellWord("/tmp/app.sqlite") == "/tmp/app.sqlite")
        #expect(SearchIndex.shellWord("my notes") == "'my notes'")
        #expect(SearchIndex.shellWord("it's") == #"'it'\''s'"#)
        #expect(SearchIndex.shellWord("") == "''")
        #expect(SearchIndex.shellWord("$(rm -rf x)") == "'$(rm -rf x)'")
    }
}
