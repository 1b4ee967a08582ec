import Foundation
import Testing

@Suite("sqlq import", .onProcessThreads)
struct ImportCommandTests {
    static let schema = """
        CREATE TABLE people(
            id INTEGER PRIMARY KEY, name TEXT NOT NULL, age INTEGER CHECK (age >= 0), note TEXT, joined DATETIME
        );
        INSERT INTO people(name, age) VALUES ('existing', 40);
        """

    @Test("CSV rows go in with their quotes, line breaks and NULLs, and a summary line")
    func csv() throws {
        let database = try TestDatabase.with(Self.schema)
        let file = try database.directory.write(
            "people.csv",
            """
            name,age,note,joined\r
            "Doe, Jane",31,"says ""hi""
            on two lines",2026-01-02\r
            Bob,,"",\r

            """)
        let result = try database.run(["import", "people", file])
        #expect(result.status == 0)
        #expect(result.output == "Imported 2 rows into \"people\" from \(file).\n")
        let rows = try database.read { db in
            try db.fetchAll("SELECT name, age, note, joined FROM people WHERE id > 1 ORDER BY id")
        }
        #expect(
            rows.map(\.values) == [
                [.text("Doe, Jane"), .integer(31), .text("says \"hi\"\non two lines"), .text("2026-01-02")],
                [.text("Bob"), .null, .text(""), .null],
            ])
    }

    @Test("JSON arrays and NDJSON, from a file or standard input")
    func json() throws {
        let database = try TestDatabase.with(Self.schema)
        let file = try database.directory.write(
            "people.json", #"[{"name": "Ann", "age": 7, "note": {"pets": ["cat"]}}, {"name": "Ben"}]"#)
        #expect(
            try database.run(["import", "people", file]).output == "Imported 2 rows into \"people\" from \(file).\n")
        let lines = try database.run(
            ["import", "people", "-", "--format", "ndjson"],
            input: "{\"name\": \"Cy\", \"age\": 3.0}\n{\"name\": \"Di\", \"joined\": \"2026-05-01\"}\n")
        #expect(lines.status == 0)
        #expect(lines.output == "Imported 2 rows into \"people\" from standard input.\n")
        let rows = try database.read { db in
            try db.fetchAll("SELECT name, age, note, joined FROM people WHERE id > 1 ORDER BY id")
        }
        #expect(
            rows.map(\.values) == [
                [.text("Ann"), .integer(7), .text(#"{"pets": ["cat"]}"#), .null],
                [.text("Ben"), .null, .null, .null],
                [.text("Cy"), .integer(3), .null, .null],
                [.text("Di"), .null, .null, .text("2026-05-01")],
            ])
    }

    @Test(
        "A bad row names its line, and nothing is imported",
        arguments: [
            ("bad.csv", "name,age\nAnn,3\nBen,-1\n", "bad.csv, line 3: CHECK constraint failed: age >= 0"),
            ("bad.csv", "name,age\nAnn,3\n,4\n", "bad.csv, line 3: NOT NULL constraint failed: people.name"),
            (
                "bad.csv", "name,age\nAnn,3\nBen,old\n",
                "bad.csv, line 3: column \"age\" (INTEGER) holds numbers, but 'old' is not a number"
            ),
            ("bad.csv", "name,age\nAnn,3\nBen,4,5\n", "bad.csv, line 3: 3 fields, but the header has 2 columns"),
            (
                "bad.csv", "name,agee\nAnn,3\n",
                "bad.csv, line 1: no such column: \"agee\" in table \"people\"; did you mean \"age\"?"
            ),
            (
                "bad.ndjson", "{\"name\": \"Ann\"}\n{\"name\": \"Ben\", \"age\": }\n",
                "bad.ndjson, line 2: expected a value"
            ),
            (
                "bad.ndjson", "{\"name\": \"Ann\"}\n{\"name\": \"Ben\"}\n{\"name\": \"Cy\"\n{\"name\": \"Di\"}\n",
                "bad.ndjson, line 3: the object is not closed on its line; NDJSON holds one object per line "
                    + "(line 4: expected \",\" or \"}\" in an object)"
            ),
            (
                "bad.json", "[\n{\"name\": \"Ann\"},\n{\"name\": null}\n]",
                "bad.json, line 3: NOT NULL constraint failed: people.name"
            ),
            (
                "bad.csv", "name,age,name\nAnn,3,Ben\n",
                "bad.csv, line 1: the header names the column \"name\" twice (columns 1 and 3)"
            ),
            (
                "bad.csv", "name,age,NAME\nAnn,3,Ben\n",
                "bad.csv, line 1: the header names the column \"name\" twice (columns 1 and 3)"
            ),
            (
                "bad.ndjson", "{\"name\": \"Ann\", \"Name\": \"Ben\"}\n",
                "bad.ndjson, line 1: \"name\" and \"Name\" name the same column"
            ),
            (
                "bad.csv", "name,age\nAnn,nan\n",
                "bad.csv, line 2: column \"age\" (INTEGER) holds numbers, but 'nan' is not a number"
            ),
            (
                "bad.csv", "name,age\nAnn,inf\n",
                "bad.csv, line 2: column \"age\" (INTEGER) holds numbers, but 'inf' is not a number"
            ),
            (
                "bad.csv", "name,age\nAnn,0x1A\n",
                "bad.csv, line 2: column \"age\" (INTEGER) holds numbers, but '0x1A' is not a number"
            ),
            (
                "bad.ndjson", "{\"name\": \"Ann\", \"age\": \"Infinity\"}\n",
                "bad.ndjson, line 1: column \"age\" (INTEGER) holds numbers, but 'Infinity' is not a number"
            ),
        ])
    func badRow(name: String, contents: String, message: String) throws {
        let database = try TestDatabase.with(Self.schema)
        let file = try database.directory.write(name, contents)
        let result = try database.run(["import", "people", file])
        #expect(result.status == 1)
        #expect(result.errors.hasPrefix("Error: " + database.directory.file(message).path))
        #expect(result.errors.hasSuffix("  nothing was imported\n"))
        #expect(try database.count("SELECT count(*) FROM people") == 1)
    }

    @Test("An unknown header column is reported on the header's line, underlined, even with no rows after it")
    func unknownHeaderColumn() throws {
        let database = try TestDatabase.with(Self.schema)
        for contents in ["name,agee\r\nAnn,3\r\n", "name,agee\n"] {
            let file = try database.directory.write("bad.csv", contents)
            let result = try database.run(["import", "people", file])
            #expect(result.status == 1)
            #expect(
                result.errors == """
                    Error: \(file), line 1: no such column: "agee" in table "people"; did you mean "age"?
                      name,agee
                           ^^^^
                      columns of "people": id, name, age, note, joined
                      nothing was imported

                    """)
        }
        #expect(try database.count("SELECT count(*) FROM people") == 1)
    }

    @Test("Generated columns of the table are skipped, and the summary says so: sqlq's own export imports")
    func generatedColumns() throws {
        let schema = "CREATE TABLE t(a, b, c AS (a * 2), d TEXT GENERATED ALWAYS AS (b || '!') STORED);"
        let source = try TestDatabase.with(schema + "INSERT INTO t(a, b) VALUES (1, 'x'), (2, NULL);")
        for format in ["csv", "json", "ndjson"] {
            let export = try source.run(["query", "t", "--format", format])
            #expect(export.status == 0)
            let file = try source.directory.write("t." + format, export.output)
            let destination = try TestDatabase.with(schema)
            let result = try destination.run(["import", "t", file])
            #expect(result.status == 0, "\(format): \(result.errors)")
            #expect(
                result.output
                    == "Imported 2 rows into \"t\" from \(file), without the generated columns \"c\" and \"d\".\n")
            let rows = try destination.read { db in try db.fetchAll("SELECT a, b, c, d FROM t ORDER BY a").map(\.values)
            }
            #expect(
                rows == [
                    [.integer(1), .text("x"), .integer(2), .text("x!")], [.integer(2), .null, .integer(4), .null],
                ])
        }
    }

    @Test("Unknown tables, formats and files")
    func errors() throws {
        let database = try TestDatabase.with(Self.schema)
        let file = try database.directory.write("people.csv", "name\nAnn\n")
        let table = try database.run(["import", "peple", file])
        #expect(table.status == 2)
        #expect(table.errors.hasPrefix("Error: no such table: \"peple\"; did you mean \"people\"?"))
        let format = try database.run(["import", "people", try database.directory.write("people.txt", "name\nAnn\n")])
        #expect(format.status == 2)
        #expect(format.errors.contains("pass --format csv, json or ndjson"))
        let missing = try database.run(["import", "people", database.directory.file("none.csv").path])
        #expect(missing.status == 1)
        #expect(missing.errors.contains("No such file or directory"))
        #expect(try database.count("SELECT count(*) FROM people") == 1)
    }

    @Test("Bytes that are not UTF-8 are refused with their line and offset, not replaced")
    func invalidUTF8() throws {
        let database = try TestDatabase.with(Self.schema)
        for (name, bytes) in [
            ("latin1.csv", Array("name,age\nAnn,3\nJos".utf8) + [0xE9] + Array(",4\n".utf8)),
            ("latin1.ndjson", Array("{\"name\": \"Ann\"}\n{\"name\": \"Jos".utf8) + [0xE9] + Array("\"}\n".utf8)),
            ("overlong.csv", Array("name\nAnn\nA".utf8) + [0xC0, 0xAF] + Array("\n".utf8)),
            ("surrogate.csv", Array("name\nAnn\nA".utf8) + [0xED, 0xA0, 0x80] + Array("\n".utf8)),
        ] {
            let file = database.directory.file(name)
            try Data(bytes).write(to: file)
            let result = try database.run(["import", "people", file.path])
            #expect(result.status == 1, "\(name)")
            let offset = bytes.firstIndex { $0 >= 0x80 }!
            let line = 1 + bytes[..<offset].count { $0 == UInt8(ascii: "\n") }
            #expect(
                result.errors.hasPrefix(
                    "Error: \(file.path), line \(line): not UTF-8 (byte \(offset + 1) of the file, 0x\(String(bytes[offset], radix: 16, uppercase: true)))"
                ), "\(result.errors)")
        }
        #expect(try database.count("SELECT count(*) FROM people") == 1)
    }

    @Test("JSON nested deeper than the stack allows is read without recursion, and an error names its line")
    func deepJSON() throws {
        let database = try TestDatabase.with(Self.schema)
        let depth = 60_000
        let unclosed = try database.directory.write(
            "unclosed.json", "[\n{\"name\": \"Ann\",\n\"note\": " + String(repeating: "[", count: depth) + "}]")
        let broken = try database.run(["import", "people", unclosed])
        #expect(broken.status == 1)
        #expect(broken.errors.hasPrefix("Error: \(unclosed), line 3: expected a value"))
        let nested = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        let closed = try database.directory.write("closed.ndjson", "{\"name\": \"Ann\", \"note\": \(nested)}\n")
        let result = try database.run(["import", "people", closed])
        #expect(result.status == 0)
        #expect(try database.count("SELECT count(*) FROM people WHERE note = ?", [.text(nested)]) == 1)
    }

    @Test("A database that cannot be written is named in the error, not a line of the input")
    func readOnlyDatabase() throws {
        let database = try TestDatabase.with(Self.schema)
        let file = try database.directory.write("people.csv", "name,age\nAnn,3\n")
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: database.path)
        // Root writes whatever the permissions say, so as root the import runs as nobody.
        let command = [Executable.url.path, "import", "people", file, "--db", database.path]
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
        #expect(!result.errors.contains("line"))
        #expect(try database.count("SELECT count(*) FROM people") == 1)
    }

    @Test("--timeout is a number of seconds; a writer that holds the lock longer is named with advice")
    func lockTimeout() throws {
        let database = try TestDatabase.with(Self.schema)
        let file = try database.directory.write("people.csv", "name,age\nAnn,3\n")
        for bad in ["-1", "soon", "nan", "inf", "1e300"] {
            let result = try database.run(["import", "people", file, "--timeout", bad])
            #expect(result.status == 2, "--timeout \(bad)")
            #expect(result.errors.contains("--timeout"), "\(result.errors)")
        }
        let holder = try LockHolder(database.path)
        let result = try BackgroundCommand(["import", "people", file, "--timeout", "0.2", "--db", database.path]).wait()
        try holder.release()
        #expect(result.status == 1)
        #expect(
            result.errors.hasPrefix(
                "Error: the database \"\(database.path)\" is locked: another process holds a lock on it (reading or writing), and it held the lock for longer than --timeout (0.2 s)"
            ), "\(result.errors)")
        #expect(result.errors.contains("try again once it is done, or wait longer with --timeout SECONDS"))
        #expect(try database.count("SELECT count(*) FROM people") == 1)
        #expect(try database.run(["import", "people", file, "--timeout", "0.2"]).status == 0)
    }
}
