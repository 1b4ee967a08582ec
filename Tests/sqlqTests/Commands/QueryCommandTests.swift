import Foundation
import SQLite
import Testing

@Suite("sqlq query", .onProcessThreads)
struct QueryCommandTests {
    private func jsonRows(_ output: String) throws -> [[String: Any]] {
        try #require(JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[String: Any]])
    }

    @Test("The README's command runs on the demo database when no database is given")
    func readmeCommand() throws {
        let arguments = ["query", "items", "--where", "priority >= 3 and not done", "--sort", "-due", "--limit", "10"]
        let table = try Executable.run(arguments)
        #expect(table.status == 0)
        #expect(table.errors.isEmpty)
        #expect(table.lines.count == 13)
        #expect(table.lines.first?.drop { $0 == " " }.hasPrefix("id | list_id | title") == true)
        #expect(table.lines.last == "(10 rows)")

        let json = try Executable.run(arguments + ["--format", "json"])
        let rows = try jsonRows(json.output)
        let demo = try TestDatabase.demo()
        let expected = try demo.read { db in
            try db.fetchAll("SELECT * FROM items WHERE priority >= ? AND NOT done ORDER BY due DESC LIMIT ?", [3, 10])
        }
        #expect(rows.map { $0["id"] as? Int } == expected.map { try? $0["id"] as Int })
        #expect(rows.allSatisfy { ($0["priority"] as? Int ?? 0) >= 3 && $0["done"] as? Int == 0 })
    }

    @Test("SQLQ_DATABASE names the database when --db does not")
    func environmentVariable() throws {
        let database = try TestDatabase.with(
            "CREATE TABLE notes(id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes(body) VALUES ('from the file');")
        let result = try Executable.run(
            ["query", "notes", "--format", "csv"], environment: ["SQLQ_DATABASE": database.path])
        #expect(result.status == 0)
        #expect(result.output == "id,body\r\n1,from the file\r\n")
        let other = try TestDatabase.with(
            "CREATE TABLE notes(id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes(body) VALUES ('from --db');")
        let overridden = try Executable.run(
            ["query", "notes", "--format", "csv", "--db", other.path], environment: ["SQLQ_DATABASE": database.path])
        #expect(overridden.output == "id,body\r\n1,from --db\r\n")
    }

    @Test("Every format writes the selected rows", arguments: OutputFormatCase.all)
    func formats(format: OutputFormatCase) throws {
        let database = try TestDatabase.with(
            """
            CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, score REAL);
            INSERT INTO t VALUES (1, 'a, "b"', 1.5), (2, NULL, NULL), (3, 'c|d', -2);
            """)
        let result = try database.run(["query", "t", "--where", "id <= 2", "--sort", "-id", "--format", format.name])
        #expect(result.status == 0)
        #expect(result.output == format.expected)
    }

    @Test("--columns, --offset and --limit shape the result; --count counts it")
    func shaping() throws {
        let database = try TestDatabase.demo()
        let page = try database.run([
            "query", "items", "--where", "list_id = 2", "--sort", "id", "--columns", "id, title", "--offset", "3",
            "--limit", "2",
            "--format", "tsv",
        ])
        let expected = try database.read { db in
            try db.fetchAll("SELECT id, title FROM items WHERE list_id = 2 ORDER BY id LIMIT 2 OFFSET 3")
        }
        #expect(page.lines == ["id\ttitle"] + expected.map { "\(try! $0[0] as Int64)\t\(try! $0[1] as String)" })

        let count = try database.run([
            "query", "items", "--where", "due between 2026-03-01 and 2026-03-31T23:59:59", "--count",
        ])
        let expectedCount = try database.count(
            "SELECT count(*) FROM items WHERE due BETWEEN '2026-03-01' AND '2026-03-31 23:59:59.000'")
        #expect(count.output == "\(expectedCount)\n")
        #expect(expectedCount > 0)
    }

    @Test("--explain prints the SQL with placeholders, the bound values and the plan")
    func explain() throws {
        let result = try Executable.run([
            "query", "items", "--where", "priority = 5 and title contains 'milk'", "--sort", "-due", "--limit", "3",
            "--explain",
        ])
        #expect(result.status == 0)
        #expect(
            result.lines[0]
                == #"SELECT * FROM "items" WHERE "priority" = ? AND "title" LIKE ? ESCAPE '\' ORDER BY "due" DESC LIMIT ?"#
        )
        #expect(result.lines[1] == "-- arguments: 5, '%milk%', 3")
        #expect(result.lines[2] == "-- plan:")
        #expect(result.output.contains("USING INDEX items_by_priority"))

        let count = try Executable.run(["query", "items", "--where", "done", "--count", "--explain"])
        #expect(count.lines[0] == #"SELECT count(*) FROM "items" WHERE "done""#)
        #expect(count.lines[1] == "-- arguments: none")
    }

    @Test(
        "Errors in the expression exit with 2 and explain themselves on standard error",
        arguments: [
            (
                "priority >=",
                "Error: --where: expected a column or a value after \">=\", found the end of the expression"
            ),
            (
                "prioritty >= 3",
                "Error: --where: no such column: \"prioritty\" in table \"items\"; did you mean \"priority\"?"
            ),
            (
                "priority >= 'high'",
                "Error: --where: type mismatch: column \"priority\" (INTEGER) holds numbers, but the string 'high' is text"
            ),
            ("title = 'a", "Error: --where: this string has no closing quote"),
        ])
    func expressionErrors(expression: String, message: String) throws {
        let result = try Executable.run(["query", "items", "--where", expression])
        #expect(result.status == 2)
        #expect(result.output.isEmpty)
        let lines = result.errors.split(separator: "\n").map(String.init)
        #expect(lines.first == message)
        #expect(lines.count >= 3 && lines[1] == "  " + expression && lines[2].contains("^"))
    }

    @Test("Unknown tables and columns in other options exit with 2 and list what exists")
    func unknownNames() throws {
        let table = try Executable.run(["query", "itemz"])
        #expect(table.status == 2)
        #expect(
            table.errors.hasPrefix(
                "Error: no such table: \"itemz\"; did you mean \"items\"?\n  tables: items, lists, schema_migrations"))

        let sort = try Executable.run(["query", "items", "--sort", "-due,prority"])
        #expect(sort.status == 2)
        #expect(
            sort.errors.contains("--sort: no such column: \"prority\" in table \"items\"; did you mean \"priority\"?"))
        #expect(sort.errors.contains("  -due,prority\n       ^^^^^^^"))

        let columns = try Executable.run(["query", "items", "--columns", "id,titl"])
        #expect(columns.status == 2)
        #expect(columns.errors.contains("--columns: no such column: \"titl\""))
    }

    @Test("Injection attempts in values and names change nothing")
    func injection() throws {
        let database = try TestDatabase.demo()
        let before = try database.count("SELECT count(*) FROM items")
        let value = try database.run([
            "query", "items", "--where", "title = 'x'' OR 1=1; DROP TABLE items; --'", "--count",
        ])
        #expect(value.status == 0)
        #expect(value.output == "0\n")
        for arguments in [
            ["query", "items; DROP TABLE items"],
            ["query", "items", "--where", #""title"" = 1; DROP TABLE items; --" = 1"#],
            ["query", "items", "--sort", "due; DROP TABLE items"],
            ["query", "items", "--columns", "id, (SELECT 1)"],
        ] {
            let result = try database.run(arguments)
            #expect(result.status == 2, "\(arguments)")
            #expect(result.errors.contains("no such"), "\(arguments)")
        }
        #expect(try database.count("SELECT count(*) FROM items") == before)
    }

    @Test("A missing, unreadable or corrupt database is a runtime error: exit 1")
    func badDatabases() throws {
        let directory = try TemporaryDirectory()
        let missing = try Executable.run(["query", "items", "--db", directory.file("none.sqlite").path])
        #expect(missing.status == 1)
        #expect(missing.errors == "Error: no such database file: \"\(directory.file("none.sqlite").path)\"\n")

        let text = try directory.write("notes.txt", String(repeating: "not a database at all\n", count: 100))
        let notDatabase = try Executable.run(["query", "items", "--db", text])
        #expect(notDatabase.status == 1)
        #expect(notDatabase.errors.hasPrefix("Error: cannot open database \"\(text)\": file is not a database"))

        let directoryResult = try Executable.run(["query", "items", "--db", directory.url.path])
        #expect(directoryResult.status == 1)

        // A real database whose table pages are overwritten: the header is fine, the data is not.
        let corrupt = try TestDatabase.demo()
        let handle = try #require(FileHandle(forUpdatingAtPath: corrupt.path))
        try handle.seek(toOffset: 4096 * 3)
        handle.write(Data(repeating: 0xA5, count: 4096 * 40))
        try handle.close()
        let result = try corrupt.run(["query", "items", "--where", "priority > 2", "--count"])
        #expect(result.status == 1)
        #expect(result.errors.contains("malformed"))
        #expect(result.output.isEmpty)
    }

    @Test("Dates at the ends of years 0000-9999 bind as written; offsets and years beyond them exit with 2")
    func dateBounds() throws {
        let database = try TestDatabase.with(
            "CREATE TABLE t(due DATETIME); INSERT INTO t VALUES ('9999-12-31 23:59:59.999'), ('0000-01-01');")
        let late = try database.run(["query", "t", "--where", "due < 9999-12-31T23:59:59.9999", "--format", "csv"])
        #expect(late.status == 0)
        #expect(late.output == "due\r\n9999-12-31 23:59:59.999\r\n0000-01-01\r\n")
        for expression in ["due < 2026-03-01T09:30+99:99", "due > 9999-12-31T23:59-00:01"] {
            let result = try database.run(["query", "t", "--where", expression])
            #expect(result.status == 2, "\(expression)")
            #expect(result.errors.hasPrefix("Error: --where: "), "\(result.errors)")
            #expect(result.output.isEmpty)
        }
    }

    @Test("Usage errors exit with 2")
    func usage() throws {
        #expect(try Executable.run(["query", "items", "--limit", "-1"]).status == 2)
        #expect(try Executable.run(["query", "items", "--frobnicate"]).status == 2)
        #expect(try Executable.run(["query", "items", "--format", "xml"]).status == 2)
        #expect(try Executable.run(["query"]).status == 2)
        #expect(try Executable.run(["frobnicate"]).status == 2)
    }

    @Test(
        "--limit and --offset take a non-negative integer, and say so",
        arguments: [("--limit", "-1"), ("--limit", "abc"), ("--offset", "-5"), ("--limit", "1.5"), ("--offset", "")])
    func numericOptions(option: String, value: String) throws {
        let result = try Executable.run(["query", "items", option, value])
        #expect(result.status == 2)
        #expect(
            result.errors.hasPrefix(
                "Error: \(option) must be a non-negative integer, such as \(option) 10; \"\(value)\" is not one"),
            "\(result.errors)")
        #expect(result.output.isEmpty)
    }

    @Test("--explain writes each argument as a SQL literal on the arguments line")
    func explainLiterals() throws {
        let database = try TestDatabase.with(
            "CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, score REAL); INSERT INTO t(name) VALUES ('a')")
        let result = try database.run([
            "query", "t", "--where", #"name in ('it''s', 'a\nSELECT 1; --', 'tab\there', '\r') or score = 1e400"#,
            "--explain",
        ])
        #expect(result.status == 0)
        #expect(
            result.lines[1]
                == #"-- arguments: 'it''s', 'a' || char(10) || 'SELECT 1; --', 'tab' || char(9) || 'here', char(13), 9e999"#
        )
        #expect(result.lines.dropFirst().allSatisfy { $0.hasPrefix("--") })
        // The literals are SQL that gives back the bound values.
        let values = try database.read { db in
            try db.fetchOne(
                Row.self, "SELECT 'a' || char(10) || 'SELECT 1; --' = ?, char(13) = ?, 9e999 = ?",
                [.text("a\nSELECT 1; --"), .text("\r"), .real(.infinity)])
        }
        #expect(try values.map { [try $0[0] as Int, try $0[1] as Int, try $0[2] as Int] } == [1, 1, 1])
    }

    @Test("Colour only on a terminal, and never with NO_COLOR")
    func colour() async throws {
        let piped = try Executable.run(["query", "items", "--where", "notes is null", "--limit", "2"])
        #expect(!piped.output.contains("\u{1B}["))

        let terminal = try PseudoTerminal()
        let coloured = try RunningCommand(
            ["query", "items", "--where", "notes is null", "--limit", "2"], terminal: terminal)
        #expect(try await coloured.exitStatus() == 0)
        try await coloured.output.waitFor("rows)")
        #expect(coloured.output.text.contains("\u{1B}[1m"))
        #expect(coloured.output.text.contains("\u{1B}[2mNULL"))

        let plainTerminal = try PseudoTerminal()
        let plain = try RunningCommand(
            ["query", "items", "--where", "notes is null", "--limit", "2"], environment: ["NO_COLOR": "1"],
            terminal: plainTerminal)
        #expect(try await plain.exitStatus() == 0)
        try await plain.output.waitFor("rows)")
        #expect(!plain.output.text.contains("\u{1B}["))
    }
}

/// One `--format`, with what it writes for the rows `(2, NULL, NULL)` and `(1, 'a, "b"', 1.5)`.
struct OutputFormatCase: Sendable, CustomTestStringConvertible {
    let name: String
    let expected: String
    var testDescription: String { name }

    static let all = [
        OutputFormatCase(
            name: "table",
            expected: """
                 id | name   | score
                ----+--------+-------
                  2 | NULL   |  NULL
                  1 | a, "b" |   1.5
                (2 rows)

                """),
        OutputFormatCase(name: "csv", expected: "id,name,score\r\n2,,\r\n1,\"a, \"\"b\"\"\",1.5\r\n"),
        OutputFormatCase(name: "tsv", expected: "id\tname\tscore\n2\t\\N\t\\N\n1\ta, \"b\"\t1.5\n"),
        OutputFormatCase(
            name: "json",
            expected: """
                [
                {"id":2,"name":null,"score":null},
                {"id":1,"name":"a, \\"b\\"","score":1.5}
                ]

                """),
        OutputFormatCase(
            name: "ndjson",
            expected: """
                {"id":2,"name":null,"score":null}
                {"id":1,"name":"a, \\"b\\"","score":1.5}

                """),
        OutputFormatCase(
            name: "markdown",
            expected: """
                |  id | name   | score |
                |----:|--------|------:|
                |   2 | NULL   |  NULL |
                |   1 | a, "b" |   1.5 |

                """),
    ]
}
