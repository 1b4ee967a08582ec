import ChildProcesses
import Foundation
import SQLite
import Testing

@Suite("sqlq search-index", .onProcessThreads)
struct SearchIndexCommandTests {
    /// The ids `query --search` prints for `text`.
    private func search(_ database: TestDatabase, _ text: String) throws -> [Int64] {
        let result = try database.run(["query", "notes", "--search", text, "--columns", "id", "--format", "tsv"])
        #expect(result.status == 0, "\(result.errors)")
        return SearchTests.ids(result).sorted()
    }

    /// The schema's statements, to check that a refused command changed nothing.
    private func schema(_ database: TestDatabase) throws -> [String] {
        try database.read { db in try db.fetchAll(String.self, "SELECT sql FROM sqlite_master ORDER BY name") }
    }

    @Test("The index it creates follows the sqlite3 shell's inserts, updates and deletes")
    func createAndFollow() throws {
        let database = try NotesDatabase.make(indexed: false)
        let created = try database.run(["search-index", "notes", "TITLE", "body"])
        #expect(created.status == 0, "\(created.errors)")
        #expect(
            created.output
                == "Created the full-text index \"notes_fts\" of \"notes\" (title, body), and the triggers that keep it current.\n"
        )
        let statements = try schema(database).joined(separator: "\n")
        #expect(statements.contains(#"USING fts5("title", "body", content='notes', content_rowid='id')"#))
        for trigger in ["notes_fts_ai", "notes_fts_ad", "notes_fts_au"] { #expect(statements.contains(trigger)) }

        func expectInSync(_ step: String) throws {
            for text in ["swi", "swift", "lesson", "chair", "market", "garden", "air"] {
                #expect(
                    try search(database, text) == (try NotesDatabase.matching(text, in: database)), "\(step): \(text)")
            }
        }
        try expectInSync("created")
        try SQLiteShell.run(
            database.path, "INSERT INTO notes(title, body, archived) VALUES ('Swivel chair', 'for the market', 0)")
        try expectInSync("insert")
        #expect(try search(database, "swiv cha") == [7])
        try SQLiteShell.run(database.path, "UPDATE notes SET body = 'air and swift birds' WHERE id = 5")
        try expectInSync("update")
        #expect(try search(database, "garden swi") == [5])
        try SQLiteShell.run(database.path, "UPDATE notes SET archived = 1")
        try expectInSync("update of a column not indexed")
        try SQLiteShell.run(database.path, "DELETE FROM notes WHERE id IN (1, 2)")
        try expectInSync("delete")
        #expect(try search(database, "swift") == [3, 5, 6])
        try SearchIndexSafetyTests.expectIntact(database)
    }

    @Test("--rebuild refills an index emptied, or missing rows written without its triggers")
    func rebuild() throws {
        let database = try NotesDatabase.make(indexed: false)
        #expect(try database.run(["search-index", "notes", "title", "body"]).status == 0)
        try SQLiteShell.run(database.path, "INSERT INTO notes_fts(notes_fts) VALUES ('delete-all')")
        #expect(try search(database, "swi") == [])
        let rebuilt = try database.run(["search-index", "notes", "--rebuild"])
        #expect(rebuilt.status == 0, "\(rebuilt.errors)")
        #expect(rebuilt.output == "Rebuilt the full-text index \"notes_fts\" of \"notes\".\n")
        #expect(try search(database, "swi") == [1, 2, 3, 4, 6])

        try SQLiteShell.run(
            database.path,
            "DROP TRIGGER notes_fts_ai; INSERT INTO notes(title, body, archived) VALUES ('Swallow', 'a bird', 0)")
        // An index that lacks a trigger is refused rather than searched (see SearchIndexSafetyTests).
        #expect(try database.run(["query", "notes", "--search", "swallow"]).status == 1)
        // The columns may be given again, as when the index was created; the index itself too.
        let restored = try database.run(["search-index", "notes", "title", "body", "--rebuild"])
        #expect(
            restored.output
                == "Rebuilt the full-text index \"notes_fts\" of \"notes\", and restored its triggers notes_fts_ai.\n")
        #expect(try search(database, "swallow") == [7])
        #expect(try database.run(["search-index", "notes_fts", "--rebuild"]).status == 0)

        let other = try database.run(["search-index", "notes", "body", "--rebuild"])
        #expect(other.status == 2)
        #expect(
            other.errors.hasPrefix(
                "Error: the full-text index \"notes_fts\" indexes title, body, not body; to index other columns, "))
        try SearchIndexSafetyTests.expectIntact(database)
    }

    @Test("Several indexes: --search uses the first by name; --name creates and rebuilds another")
    func severalIndexes() throws {
        let database = try NotesDatabase.make(indexed: false)
        let titles = try database.run(["search-index", "notes", "title", "--name", "titles"])
        #expect(titles.status == 0, "\(titles.errors)")
        #expect(try search(database, "lesson") == [])
        #expect(try database.run(["search-index", "notes", "title", "body"]).status == 0)
        // notes_fts sorts before titles: it is searched, and it indexes the bodies.
        #expect(try search(database, "lesson") == [4])
        let rebuilt = try database.run(["search-index", "notes", "--rebuild", "--name", "titles"])
        #expect(rebuilt.output == "Rebuilt the full-text index \"titles\" of \"notes\".\n")
        let titleSearch = try database.run(["query", "titles", "--search", "swim", "--format", "csv"])
        #expect(titleSearch.output == "title\r\nSwimming\r\n")
        try SearchIndexSafetyTests.expectIntact(database)
    }

    @Test("Wrong names and tables that cannot be indexed exit with 2, naming the problem, and change nothing")
    func refusals() throws {
        let database = try NotesDatabase.make(indexed: false)
        try SQLiteShell.run(
            database.path,
            """
            CREATE VIEW open_notes AS SELECT * FROM notes WHERE NOT archived;
            CREATE TABLE tags(name TEXT PRIMARY KEY, note TEXT) WITHOUT ROWID;
            CREATE VIRTUAL TABLE docs USING fts5(text);
            CREATE TABLE taken_fts(x);
            CREATE TABLE taken(body TEXT);
            CREATE TABLE trig(body TEXT);
            CREATE TRIGGER trig_fts_ad AFTER DELETE ON trig BEGIN SELECT 1; END;
            """)
        let before = try schema(database)
        let cases: [([String], String)] = [
            (["note", "title"], #"Error: no such table: "note"; did you mean "notes"?"#),
            (["notes", "title", "bdy"], #"Error: no such column: "bdy" in table "notes"; did you mean "body"?"#),
            (["notes", "title", "Title"], #"Error: the column "title" is named twice"#),
            (
                ["open_notes", "title"],
                #"Error: "open_notes" is a view: an index is kept current by triggers on a table"#
            ),
            (["tags", "note"], #"Error: "tags" is a WITHOUT ROWID table"#),
            (
                ["docs", "text"],
                #"Error: "docs" is a full-text index itself; search it with sqlq query docs --search TEXT"#
            ),
            (
                ["taken", "body"],
                #"Error: a table named "taken_fts" exists already; name the index otherwise with --name NAME"#
            ),
            (
                ["trig", "body"],
                #"Error: the index "trig_fts" needs the name "trig_fts_ad" for a trigger, and a trigger has it already"#
            ),
            (["notes"], "Error: search-index needs the columns to index, such as: sqlq search-index notes title body"),
            (
                ["notes", "--rebuild"],
                #"Error: "notes" has no full-text index (an FTS5 table, or one whose content= is "notes"); create one with:"#
            ),
            (
                ["notes", "--rebuild", "--name", "docs"],
                #"Error: the full-text index "docs" indexes "docs", not "notes""#
            ),
            (["notes", "--rebuild", "--name", "taken"], #"Error: "taken" is not a full-text index (an FTS5 table)"#),
        ]
        for (arguments, message) in cases {
            let result = try database.run(["search-index"] + arguments)
            #expect(result.status == 2, "\(arguments): \(result.errors)")
            #expect(result.errors.hasPrefix(message), "\(arguments): \(result.errors)")
            #expect(result.output.isEmpty)
        }
        #expect(try schema(database) == before)

        #expect(try database.run(["search-index", "notes", "title"]).status == 0)
        let again = try database.run(["search-index", "notes", "body"])
        #expect(again.status == 2)
        #expect(
            again.errors.hasPrefix(
                #"Error: the full-text index "notes_fts" of "notes" exists already; --rebuild refills it, --name NAME creates another"#
            ))

        let demo = try Executable.run(["search-index", "items", "title"])
        #expect(demo.status == 2)
        #expect(
            demo.errors.hasPrefix("Error: search-index changes a database file: pass --db FILE or set SQLQ_DATABASE"))
        try SearchIndexSafetyTests.expectIntact(database)
    }

    @Test("A database that cannot be written exits with 1, named, and nothing is created")
    func readOnlyDatabase() throws {
        let database = try NotesDatabase.make(indexed: false)
        let before = try schema(database)
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: database.path)
        // Root writes whatever the permissions say, so as root the command runs as nobody.
        let command = [Executable.url.path, "search-index", "notes", "title", "--db", database.path]
        let result =
            getuid() == 0
            ? try BackgroundCommand(
                ["--reuid=65534", "--regid=65534", "--clear-groups"] + command,
                executable: URL(fileURLWithPath: "/usr/bin/setpriv")
            ).wait()
            : try BackgroundCommand(Array(command.dropFirst())).wait()
        #expect(result.status == 1)
        #expect(
            result.errors.hasPrefix("Error: cannot write to the database \"\(database.path)\": it is read-only"),
            "\(result.errors)")
        #expect(result.errors.contains("no index was created"))
        #expect(try schema(database) == before)
        try SearchIndexSafetyTests.expectIntact(database)
    }
}
