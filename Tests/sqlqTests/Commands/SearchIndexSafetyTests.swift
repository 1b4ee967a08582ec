import ChildProcesses
import Foundation
import SQLite
import Testing

@testable import sqlq

@Suite("sqlq search-index leaves the table as other programs use it", .onProcessThreads)
struct SearchIndexSafetyTests {
    /// Expects the sqlite3 shell to find the file sound: `PRAGMA integrity_check`, and FTS5's own
    /// `integrity-check` of every full-text index (which the pragma skips in older SQLite).
    static func expectIntact(_ database: TestDatabase, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(
            try SQLiteShell.run(database.path, "PRAGMA integrity_check") == "ok\n", sourceLocation: sourceLocation)
        let indexes = try database.read { db in
            try db.fetchAll(
                String.self,
                "SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%fts5%'")
        }
        for index in indexes {
            let name = "\"" + index.replacing("\"", with: "\"\"") + "\""
            // The shell exits with an error, which throws, when the index disagrees with its table.
            try SQLiteShell.run(database.path, "INSERT INTO \(name)(\(name)) VALUES ('integrity-check')")
        }
    }

    private func schema(_ database: TestDatabase) throws -> [String] {
        try database.read { db in
            try db.fetchAll(String.self, "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY name")
        }
    }

    /// The first column of each row that `query TABLE --search TEXT` prints, sorted.
    private func search(_ database: TestDatabase, _ table: String, _ text: String) throws -> [String] {
        let result = try database.run(["query", table, "--search", text, "--format", "tsv"])
        #expect(result.status == 0, "\(result.errors)")
        return result.lines.dropFirst().map { String($0.prefix { $0 != "\t" }) }.sorted()
    }

    @Test("A table whose rowids cannot be named exactly is refused, and other programs write to it as before")
    func unnamedRowIDs() throws {
        let database = try TestDatabase.with(
            """
            CREATE TABLE d(id INTEGER PRIMARY KEY DESC, t TEXT);
            CREATE TABLE hidden(rowid TEXT, OID TEXT, _rowid_ TEXT, t TEXT);
            CREATE TABLE keyed(id INTEGER, t TEXT, PRIMARY KEY(id DESC));
            INSERT INTO d(t) VALUES ('alpha');
            INSERT INTO keyed VALUES (7, 'alpha');
            """)
        let before = try schema(database)
        let cases = [
            ("d", #"Error: "d"."id" is INTEGER PRIMARY KEY DESC, which SQLite does not make the rowid: "#),
            ("hidden", #"Error: "hidden" has columns named rowid, oid and _rowid_, which hide its rowids"#),
        ]
        for (table, message) in cases {
            let result = try database.run(["search-index", table, "t"])
            #expect(result.status == 2, "\(table): \(result.errors)")
            #expect(result.errors.hasPrefix(message), "\(table): \(result.errors)")
            #expect(result.output.isEmpty)
        }
        #expect(try schema(database) == before)
        try SQLiteShell.run(
            database.path,
            """
            INSERT INTO d VALUES ('a text id', 'beta');
            INSERT INTO d VALUES (NULL, 'gamma');
            INSERT INTO hidden VALUES ('a', 'b', 'c', 'alpha');
            """)
        #expect(try database.count("SELECT count(*) FROM d") == 3)

        // A table constraint's PRIMARY KEY(id DESC) is a rowid alias: the index follows the ids.
        let keyed = try database.run(["search-index", "keyed", "t"])
        #expect(keyed.status == 0, "\(keyed.errors)")
        #expect(try schema(database).joined().contains("content='keyed', content_rowid='id'"))
        try SQLiteShell.run(database.path, "INSERT INTO keyed VALUES (9, 'alpha beta')")
        #expect(try search(database, "keyed", "alpha") == ["7", "9"])
        try Self.expectIntact(database)
    }

    @Test("A column named rowid: the index names the rowids oid, and finds and counts only rows with the word")
    func shadowedRowID() throws {
        let database = try TestDatabase.with(
            """
            CREATE TABLE r(rowid TEXT, t TEXT);
            INSERT INTO r VALUES ('x', 'alpha one'), ('y', 'beta two'), (NULL, 'gamma');
            CREATE TABLE a(rowid INTEGER PRIMARY KEY, t TEXT);
            INSERT INTO a VALUES (5, 'alpha');
            """)
        let created = try database.run(["search-index", "r", "t"])
        #expect(created.status == 0, "\(created.errors)")
        #expect(try schema(database).joined().contains("content='r', content_rowid='oid'"))
        try SQLiteShell.run(
            database.path,
            """
            INSERT INTO r VALUES ('z', 'alpha three'), (NULL, 'delta alpha');
            UPDATE r SET t = 'gamma two' WHERE rowid = 'y';
            DELETE FROM r WHERE t = 'gamma';
            """)
        for (text, count) in [("alpha", 3), ("beta", 0), ("two", 1), ("gamma", 1)] {
            let counted = try database.run(["query", "r", "--search", text, "--count"])
            #expect(counted.output == "\(count)\n", "\(text): \(counted.errors)")
        }
        #expect(try search(database, "r", "alpha") == [#"\N"#, "x", "z"])

        // An index made otherwise, with the column's name for its rowids, is refused, not searched.
        try SQLiteShell.run(
            database.path,
            FullTextIndex("hidden_fts", table: "r", columns: ["t"], contentRowID: "rowid").creationSQL
                .replacing("CREATE TRIGGER \"hidden_fts_", with: "CREATE TRIGGER \"r_hidden_"))
        let hidden = try database.run(["query", "hidden_fts", "--search", "alpha", "--count"])
        #expect(hidden.status == 1)
        #expect(
            hidden.errors.hasPrefix(
                #"Error: --search: the full-text index "hidden_fts" of "r" takes its rowids from "rowid", a column that "#
                    + "hides the table's rowids, so its answers would be wrong"), "\(hidden.errors)")
        try SQLiteShell.run(
            database.path,
            "DROP TABLE hidden_fts; DROP TRIGGER r_hidden_ai; DROP TRIGGER r_hidden_ad; DROP TRIGGER r_hidden_au")

        // Declared INTEGER PRIMARY KEY, the column named rowid is the rowid itself.
        #expect(try database.run(["search-index", "a", "t"]).status == 0)
        #expect(try schema(database).joined().contains("content='a', content_rowid='rowid'"))
        #expect(try search(database, "a", "alpha") == ["5"])
        try Self.expectIntact(database)
    }

    @Test("A search over an index whose triggers are missing or changed exits 1 naming --rebuild, which restores them")
    func staleIndex() throws {
        let database = try TestDatabase.with(
            "CREATE TABLE d(id INTEGER PRIMARY KEY, t TEXT); INSERT INTO d VALUES (1, 'alpha'), (2, 'beta');")
        #expect(try database.run(["search-index", "d", "t"]).status == 0)
        try SQLiteShell.run(
            database.path,
            "DROP TRIGGER d_fts_ai; DROP TRIGGER d_fts_au; UPDATE d SET t = 'gamma' WHERE id = 1; "
                + "INSERT INTO d VALUES (3, 'alpha again')")
        let stale = try database.run(["query", "d", "--search", "alpha"])
        #expect(stale.status == 1)
        #expect(
            stale.errors
                == """
                Error: --search: the full-text index "d_fts" of "d" lacks its triggers d_fts_ai, d_fts_au, so it may miss \
                rows or find rows by words they no longer have; restore its triggers and refill it with:
                  sqlq search-index d --rebuild --db \(SearchIndex.shellWord(database.path))

                """)
        #expect(stale.output.isEmpty)

        let rebuilt = try database.run(["search-index", "d", "--rebuild"])
        #expect(rebuilt.status == 0, "\(rebuilt.errors)")
        #expect(
            rebuilt.output
                == "Rebuilt the full-text index \"d_fts\" of \"d\", and restored its triggers d_fts_ai, d_fts_au.\n")
        #expect(try search(database, "d", "alpha") == ["3"])
        try SQLiteShell.run(
            database.path, "INSERT INTO d VALUES (4, 'alpha four'); UPDATE d SET t = 'beta' WHERE id = 3")
        #expect(try search(database, "d", "alpha") == ["4"])

        // A trigger of the index's name that does something else is as bad as none.
        try SQLiteShell.run(
            database.path, "DROP TRIGGER d_fts_ad; CREATE TRIGGER d_fts_ad AFTER DELETE ON d BEGIN SELECT 1; END;")
        let changed = try database.run(["query", "d", "--search", "alpha", "--count"])
        #expect(changed.status == 1)
        #expect(
            changed.errors.hasPrefix(
                #"Error: --search: the full-text index "d_fts" of "d" has its trigger d_fts_ad changed from what search-index makes"#
            ), "\(changed.errors)")
        let repaired = try database.run(["search-index", "d", "t", "--rebuild"])
        #expect(
            repaired.output == "Rebuilt the full-text index \"d_fts\" of \"d\", and restored its triggers d_fts_ad.\n")
        try SQLiteShell.run(database.path, "DELETE FROM d WHERE id = 4")
        #expect(try search(database, "d", "alpha") == [])
        // With its triggers in place, a rebuild restores nothing.
        let again = try database.run(["search-index", "d", "--rebuild"])
        #expect(again.output == "Rebuilt the full-text index \"d_fts\" of \"d\".\n")
        try Self.expectIntact(database)
    }

    @Test("Columns that FTS5 reserves or that have the index's name exit 2 with a sentence, and create nothing")
    func reservedColumns() throws {
        let database = try TestDatabase.with(
            #"CREATE TABLE k(id INTEGER PRIMARY KEY, rank TEXT, "RowID" TEXT, k_fts TEXT, other TEXT);"#)
        let before = try schema(database)
        let reserved = "so an index cannot have a column of that name; rename the column"
        let cases: [([String], String)] = [
            (["k", "other", "rank"], #"Error: FTS5 reserves the name "rank" for a column of its own, "# + reserved),
            (["k", "RowID"], #"Error: FTS5 reserves the name "RowID" for a column of its own, "# + reserved),
            (
                ["k", "k_fts"],
                #"Error: the column "k_fts" has the index's name, which FTS5 keeps for its commands; name the index otherwise with --name NAME"#
            ),
            (["k", "other", "--name", "OTHER"], #"Error: the column "other" has the index's name"#),
        ]
        for (arguments, message) in cases {
            let result = try database.run(["search-index"] + arguments)
            #expect(result.status == 2, "\(arguments): \(result.errors)")
            #expect(result.errors.hasPrefix(message), "\(arguments): \(result.errors)")
            #expect(result.output.isEmpty)
        }
        #expect(try schema(database) == before)
        #expect(try database.run(["search-index", "k", "k_fts", "--name", "k_search"]).status == 0)
        try Self.expectIntact(database)
    }
}
