import ChildProcesses
import Foundation
import SQLite
import Testing

@Suite("sqlq query --search", .onProcessThreads)
struct SearchTests {
    /// The `sqlite3` shell's output for `sql`, written by hand against the index: a join, ranked
    /// by FTS5's `rank`. CSV by default: the shell quotes more than sqlq, but not values of one
    /// word or number.
    private func reference(_ database: TestDatabase, _ sql: String, options: [String] = ["-csv", "-header"]) throws
        -> String
    {
        try SQLiteShell.run(database.path, sql, options: options)
    }

    @Test(
        "On the content table every word matches as a prefix, best match first, as the sqlite3 shell ranks it",
        arguments: [
            ("swi", "swi*"), ("SWI act", "swi* AND act*"), ("sw conc", "sw* AND conc*"), ("swift", "swift*"),
            ("lesson, tues!", "lesson* AND tues*"), ("nothing-matches", "nothing* AND matches*"),
        ])
    func contentTable(text: String, match: String) throws {
        let database = try NotesDatabase.make()
        let tsv = try database.run(["query", "notes", "--search", text, "--format", "tsv"])
        #expect(tsv.status == 0, "\(tsv.errors)")
        let expected = try reference(
            database,
            """
            SELECT notes.* FROM notes JOIN notes_fts ON notes_fts.rowid = notes.id
            WHERE notes_fts MATCH '\(match)' ORDER BY rank
            """, options: ["-tabs", "-header"])
        #expect(tsv.output == (expected.isEmpty ? "id\ttitle\tbody\tlist\tarchived\n" : expected))
        let ids = Self.ids(tsv)
        #expect(ids.sorted() == (try NotesDatabase.matching(text, in: database)))
        // CSV has the same rows in the same order.
        let csv = try database.run(["query", "notes", "--search", text, "--format", "csv"])
        #expect(csv.status == 0)
        #expect(Self.ids(csv) == ids)
        #expect(csv.output.hasPrefix("id,title,body,list,archived\r\n"))
    }

    /// The first column of each row of a CSV or TSV result, as integers.
    static func ids(_ result: CommandResult) -> [Int64] {
        // "\r\n" is one Character: CSV's lines are split on it first.
        result.output.replacing("\r\n", with: "\n").split(separator: "\n").dropFirst().compactMap { line in
            Int64(line.prefix { $0 != "," && $0 != "\t" })
        }
    }

    @Test("On the FTS5 table itself, in json, csv and tsv, as the sqlite3 shell writes it")
    func ftsTable() throws {
        let database = try NotesDatabase.make()
        let sql = "SELECT * FROM notes_fts WHERE notes_fts MATCH 'swi*' ORDER BY rank"
        let json = try database.run(["query", "notes_fts", "--search", "swi", "--format", "json"])
        #expect(json.status == 0, "\(json.errors)")
        func objects(_ text: String) throws -> [[String: String]] {
            let array = try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]])
            return array.map { $0.compactMapValues { $0 as? String } }
        }
        let expected = try objects(try reference(database, sql, options: ["-json"]))
        #expect(expected.count == 5)
        #expect(try objects(json.output) == expected)
        #expect(expected.first?["title"] == "Switches")

        let tsv = try database.run(["query", "notes_fts", "--search", "swi", "--format", "tsv"])
        #expect(tsv.output == (try reference(database, sql, options: ["-tabs", "-header"])))
        for format in ["csv", "table", "markdown", "ndjson"] {
            let result = try database.run(["query", "notes_fts", "--search", "swi", "--format", format])
            #expect(result.status == 0, "\(format): \(result.errors)")
            #expect(result.output.contains("Switch the lights, swiftly"), "\(format)")
        }
    }

    @Test("--search combines with --where, --sort, --limit, --offset, --columns, --count, --facet and --explain")
    func combined() throws {
        let database = try NotesDatabase.make()
        let join = "FROM notes JOIN notes_fts ON notes_fts.rowid = notes.id WHERE notes_fts MATCH 'swi*'"
        let page = try database.run([
            "query", "notes", "--search", "swi", "--where", "not archived", "--columns", "id,title", "--limit", "2",
            "--offset", "1", "--format", "tsv",
        ])
        #expect(page.status == 0, "\(page.errors)")
        #expect(
            page.output
                == (try reference(
                    database, "SELECT notes.id, notes.title \(join) AND NOT archived ORDER BY rank LIMIT 2 OFFSET 1",
                    options: ["-tabs", "-header"])))
        #expect(page.lines.count == 3)

        // An explicit sort replaces the ranking.
        let sorted = try database.run([
            "query", "notes", "--search", "swi", "--sort", "-list,id", "--columns", "id,list", "--format", "csv",
        ])
        #expect(
            sorted.output.replacing("\r\n", with: "\n")
                == (try reference(database, "SELECT notes.id, notes.list \(join) ORDER BY list DESC, id")))

        let count = try database.run(["query", "notes", "--search", "swi", "--where", "not archived", "--count"])
        #expect(count.output == "4\n")
        let ftsCount = try database.run(["query", "notes_fts", "--search", "swi lights", "--count"])
        #expect(ftsCount.output == "1\n")

        // Facets count among the matches only.
        let facets = try database.run(["query", "notes", "--search", "swi", "--facet", "list", "--format", "csv"])
        #expect(facets.output == "facet,value,count\r\nlist,home,3\r\nlist,work,2\r\n")
        let ftsFacets = try database.run([
            "query", "notes_fts", "--search", "swift", "--facet", "title", "--facet-size", "1", "--format", "tsv",
        ])
        #expect(ftsFacets.status == 0, "\(ftsFacets.errors)")
        #expect(ftsFacets.output == "facet\tvalue\tcount\ntitle\tBirds\t1\ntitle\t\\N\t\\N\n")

        let explain = try database.run(["query", "notes", "--search", "swi act", "--limit", "3", "--explain"])
        #expect(explain.status == 0)
        #expect(explain.lines[0].hasPrefix(#"SELECT * FROM "notes" WHERE "notes"."id" IN (SELECT "notes_fts"."rowid""#))
        #expect(explain.lines[0].contains(#" MATCH ?"#))
        #expect(explain.lines[0].contains("bm25("))
        #expect(explain.lines[1] == #"-- arguments: '"swi"* AND "act"*', '"swi"* AND "act"*', 3"#)
    }

    @Test("Hostile text gives rows, those a reading of every row finds, or the usage error: never SQLite's")
    func hostileText() throws {
        let database = try NotesDatabase.make()
        let texts = [
            #"""#, #""""#, "*", "swi*", "*swi", "NEAR(swift actors)", "NEAR(swift, 2)", "NEAR/3", "swift AND", "AND",
            "AND swift", "OR", "swift OR birds", "NOT", "swift NOT birds", "-swift", "swift -birds", "--", "-",
            #""unbalanced"#, #"swift""#, #"sw"ift"#, "title:swift", "body : swift", "{title body}: swift", "^swift",
            "+", "(", ")", "(swift", "swift)", "'", "''", "swi'ft", "\\", "%", "_", "\t\n", "日本", "🐦",
            "swift*actors", #""swift actors""#, "a:b:c", "--search", "-x", "x OR 1=1; DROP TABLE notes; --",
        ]
        for table in ["notes", "notes_fts"] {
            for text in texts {
                let result = try database.run(["query", table, "--search", text, "--format", "csv"])
                let expectsRows = !NotesDatabase.words(text).isEmpty
                if expectsRows {
                    #expect(result.status == 0, "\(table) \(text.debugDescription): \(result.errors)")
                    guard table == "notes" else { continue }
                    #expect(
                        Self.ids(result).sorted() == (try NotesDatabase.matching(text, in: database)),
                        "\(text.debugDescription)")
                } else {
                    #expect(result.status == 2, "\(table) \(text.debugDescription): \(result.errors)")
                    #expect(
                        result.errors.hasPrefix("Error: --search: nothing to search for in '"),
                        "\(text.debugDescription): \(result.errors)")
                    #expect(result.errors.contains("type at least one letter or digit"))
                }
                #expect(!result.errors.contains("fts5"), "\(text.debugDescription): \(result.errors)")
            }
        }
        #expect(try database.count("SELECT count(*) FROM notes") == 6)
    }

    @Test("A table with no full-text index exits with 2, naming the table and the command that creates one")
    func noIndex() throws {
        let database = try NotesDatabase.make(indexed: false)
        for command in ["query", "watch"] {
            let result = try database.run([command, "notes", "--search", "swift", "--limit", "1"])
            #expect(result.status == 2)
            #expect(result.output.isEmpty)
            #expect(
                result.errors
                    == """
                    Error: --search: "notes" has no full-text index (an FTS5 table, or one whose content= is "notes"); \
                    create one with:
                      sqlq search-index notes title body list --db \(database.path)

                    """)
        }
        // The command it names works, and the search then does.
        let suggested = try database.run(["search-index", "notes", "title", "body", "list"])
        #expect(suggested.status == 0, "\(suggested.errors)")
        let found = try database.run(["query", "notes", "--search", "swimming", "--columns", "id", "--format", "csv"])
        #expect(found.output == "id\r\n4\r\n")

        // The demo database is in memory: a file is needed.
        let demo = try Executable.run(["query", "items", "--search", "milk"])
        #expect(demo.status == 2)
        #expect(
            demo.errors.hasSuffix("create one with:\n  sqlq search-index items title notes due created_at --db FILE\n"))
        // With $SQLQ_DATABASE, the command needs no --db.
        let other = try NotesDatabase.make(indexed: false)
        let environment = try Executable.run(
            ["query", "notes", "--search", "x"], environment: ["SQLQ_DATABASE": other.path])
        #expect(environment.errors.hasSuffix("\n  sqlq search-index notes title body list\n"))
    }

    @Test("Text with no word is a usage error that says so")
    func noWord() throws {
        let database = try NotesDatabase.make()
        // Combining marks alone are no letter either.
        for text in ["", "   ", "*", #"" - ""#, "\u{301}", " \u{301}\u{302} * \u{20DD}"] {
            let result = try database.run(["query", "notes", "--search", text])
            #expect(result.status == 2)
            let quoted = "'" + text.replacing("'", with: "''") + "'"
            #expect(
                result.errors.hasPrefix(
                    "Error: --search: nothing to search for in \(quoted): type at least one letter or digit\n"))
        }
    }

    @Test("The search and its ranking count among the values a filter may bind")
    func boundValues() throws {
        let database = try NotesDatabase.make()
        func list(_ count: Int) -> String {
            "id in (" + Array(repeating: "1", count: count).joined(separator: ",") + ")"
        }
        // The pattern twice (the filter and the ranking) and the limit.
        let over = try database.run(["query", "notes", "--search", "swift", "--where", list(32_764), "--limit", "1"])
        #expect(over.status == 2)
        #expect(
            over.errors.hasPrefix(
                "Error: --where: too many values: SQLite binds at most 32766 values in one query, "
                    + "and --search and --limit take 3 of them; "), "\(over.errors.prefix(300))")
        let fits = try database.run([
            "query", "notes", "--search", "swift", "--where", list(32_763), "--limit", "1", "--format", "tsv",
        ])
        #expect(fits.status == 0, "\(fits.errors.prefix(300))")
        #expect(fits.lines.count == 2)
    }
}
