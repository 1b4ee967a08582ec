import Foundation
import SQLite
import Testing

@Suite("Export and import round trip", .onProcessThreads)
struct RoundTripTests {
    static let schema = """
        CREATE TABLE hostile(id INTEGER PRIMARY KEY, t TEXT, i INTEGER, r REAL, n NUMERIC, b BLOB, u);
        """

    /// Values no format may lose, by column: text, integer, real, numeric, blob and untyped.
    /// (Text in an INTEGER or REAL column is left out: import refuses it as a mistake.)
    static let columns: [[DatabaseValue]] = {
        let texts: [DatabaseValue] = [
            .null, .text(""), .text(" "), .text("  \t "), .text("\t"), .text("a,b"), .text("say \"hi\""),
            .text("\""), .text("line\nbreak"), .text("cr\rhere"), .text("crlf\r\n"), .text("\n"), .text("tab\tx"),
            .text("e\u{301}, n\u{303}"), .text("👩‍👩‍👧 🇫🇷"), .text("\u{FEFF}bom"), .text("\u{0}nul"),
            .text(String(repeating: "long, \"quoted\"\n text ", count: 5_000)), .text("12"), .text("-0.5"),
            .text("1e5"), .text("007"), .text(" 12"), .text("12 "), .text("0x1A"), .text("nan"), .text("inf"),
            .text("1e999"), .text("X'00'"), .text("x''"), .text("X'00"), .text("NULL"), .text("null"),
            .text("\\N"), .text("{\"$base64\":true,\"encoded\":\"AA==\"}"), .text("[1, 2]"),
            .blob([]), .blob([0]), .blob([0xFF, 0x00, 0x0A]),
        ]
        let integers: [DatabaseValue] = [
            .integer(.min), .integer(.max), .integer(0), .integer(-1), .null, .blob([1]),
        ]
        let reals: [DatabaseValue] = [
            .real(.infinity), .real(-.infinity), .real(1e-300), .real(.leastNonzeroMagnitude), .real(1.5), .real(0.1),
            .real(-0.0), .real(.greatestFiniteMagnitude), .real(-2.5e-7), .real(1e16), .real(3), .null,
        ]
        let numerics: [DatabaseValue] = [
            .integer(1), .real(1.5), .text("2026-01-02"), .text("a word"), .real(.infinity), .blob([2]), .null,
        ]
        let untyped: [DatabaseValue] =
            [
                .integer(12), .integer(.min), .real(1.0), .real(-0.0), .real(1e-300), .real(.infinity),
                .real(-.infinity), .blob(Array(0...255)),
            ] + texts
        return [texts, integers, reals, numerics, texts + reals, untyped]
    }()

    /// A value with its type, reals by their bits, so that `-0.0` differs from `0.0`.
    static func exact(_ value: DatabaseValue) -> String {
        switch value {
        case .null: "null"
        case .integer(let integer): "integer \(integer)"
        case .real(let real): "real \(real) \(real.bitPattern)"
        case .text(let text): "text \(Array(text.utf8))"
        case .blob(let bytes): "blob \(bytes)"
        }
    }

    static func rows(_ path: String) throws -> [[String]] {
        try Database(path: path, configuration: .readOnly).fetchAll(
            "SELECT id, t, i, r, n, b, u FROM hostile ORDER BY id"
        ).map { row in row.values.map(exact) }
    }

    @Test("Every value exported comes back with its type and value", arguments: ["csv", "json", "ndjson"])
    func roundTrip(format: String) throws {
        let source = try TestDatabase.with(Self.schema)
        let db = try Database(path: source.path)
        let count = Self.columns.map(\.count).max()!
        for index in 0..<count {
            try db.execute(
                "INSERT INTO hostile(t, i, r, n, b, u) VALUES (?, ?, ?, ?, ?, ?)",
                Self.columns.map { index < $0.count ? $0[index] : .null })
        }
        let export = try source.run(["query", "hostile", "--format", format])
        #expect(export.status == 0)
        #expect(export.errors.isEmpty)
        let file = source.directory.file("hostile." + format)
        try Data(export.output.utf8).write(to: file)

        let destination = try TestDatabase.with(Self.schema)
        let imported = try destination.run(["import", "hostile", file.path])
        #expect(imported.status == 0, "\(imported.errors)")
        let expected = try Self.rows(source.path)
        let actual = try Self.rows(destination.path)
        #expect(expected.count == count)
        #expect(actual.count == expected.count)
        for (want, got) in zip(expected, actual) where want != got {
            for (column, (a, b)) in zip(want, got).enumerated() where a != b {
                Issue.record("row \(want[0]), column \(column): exported \(a.prefix(200)), imported \(b.prefix(200))")
            }
        }
    }

    @Test("CSV tells NULL, the empty string, blobs and text that looks like them apart")
    func csvSpelling() throws {
        let source = try TestDatabase.with(
            """
            CREATE TABLE t(id INTEGER PRIMARY KEY, s TEXT, r REAL, b BLOB);
            INSERT INTO t VALUES (1, NULL, 1e999, X'00FF'), (2, '', -1e999, NULL), (3, 'X''00''', 1.5, '12');
            """)
        let csv = try source.run(["query", "t", "--format", "csv"])
        #expect(csv.output == "id,s,r,b\r\n1,,1e999,X'00FF'\r\n2,\"\",-1e999,\r\n3,\"X'00'\",1.5,\"12\"\r\n")
        let json = try source.run(["query", "t", "--format", "ndjson"])
        #expect(
            json.lines == [
                #"{"id":1,"s":null,"r":1e999,"b":{"$base64":true,"encoded":"AP8="}}"#,
                #"{"id":2,"s":"","r":-1e999,"b":null}"#,
                #"{"id":3,"s":"X'00'","r":1.5,"b":"12"}"#,
            ])
    }

    @Test("A one-column table keeps its NULL rows through CSV: an empty line is NULL, \"\" the empty string")
    func oneColumnCSV() throws {
        let schema = "CREATE TABLE o(x TEXT);"
        let source = try TestDatabase.with(schema + "INSERT INTO o VALUES (NULL), ('a'), (NULL), (''), (NULL);")
        let export = try source.run(["query", "o", "--format", "csv"])
        #expect(export.status == 0)
        #expect(export.output == "x\r\n\r\na\r\n\r\n\"\"\r\n\r\n")
        let file = try source.directory.write("o.csv", export.output)

        let destination = try TestDatabase.with(schema)
        let imported = try destination.run(["import", "o", file])
        #expect(imported.status == 0, "\(imported.errors)")
        #expect(imported.output == "Imported 5 rows into \"o\" from \(file).\n")
        let rows = try destination.read { db in try db.fetchAll("SELECT x FROM o ORDER BY rowid").map(\.values) }
        #expect(rows == [[.null], [.text("a")], [.null], [.text("")], [.null]])
    }

    @Test(
        "Text that is not UTF-8 is never changed: CSV and TSV write its bytes, table and Markdown escape them, JSON refuses"
    )
    func invalidUTF8() throws {
        let database = try TestDatabase.with(
            """
            CREATE TABLE u(id INTEGER PRIMARY KEY, t TEXT);
            INSERT INTO u(t) VALUES ('ok'), (CAST(x'61ff62' AS TEXT)), (CAST(x'e282' AS TEXT));
            """)
        let csv = try database.run(["query", "u", "--format", "csv"])
        #expect(csv.status == 0)
        #expect(
            csv.outputBytes == Array("id,t\r\n1,ok\r\n2,a".utf8) + [0xFF] + Array("b\r\n3,".utf8) + [
                0xE2, 0x82, 0x0D, 0x0A,
            ])
        let tsv = try database.run(["query", "u", "--format", "tsv"])
        #expect(
            tsv.outputBytes == Array("id\tt\n1\tok\n2\ta".utf8) + [0xFF] + Array("b\n3\t".utf8) + [0xE2, 0x82, 0x0A])
        let table = try database.run(["query", "u"])
        #expect(table.output == " id | t\n----+----------\n  1 | ok\n  2 | a\\xffb\n  3 | \\xe2\\x82\n(3 rows)\n")
        let markdown = try database.run(["query", "u", "--format", "markdown"])
        #expect(markdown.output.contains(" | a\\xffb   |\n"), "\(markdown.output)")
        for format in ["json", "ndjson"] {
            let json = try database.run(["query", "u", "--format", format])
            #expect(json.status == 1)
            #expect(
                json.errors.hasPrefix(
                    "Error: row 2, column \"t\": the text is not UTF-8 (byte 2 is 0xFF), and JSON cannot hold it unchanged\n"
                        + "  export with --format csv or tsv"), "\(json.errors)")
            #expect(!json.output.contains("\u{FFFD}"))
        }
        let sql = try database.run(["sql", "SELECT t FROM u WHERE id = ?", "--param", "3", "--format", "ndjson"])
        #expect(sql.status == 1)
        #expect(sql.errors.hasPrefix("Error: row 1, column \"t\": the text is not UTF-8 (byte 1 is 0xE2)"))
        let sqlCSV = try database.run(["sql", "SELECT t FROM u WHERE id = ?", "--param", "3", "--format", "csv"])
        #expect(sqlCSV.outputBytes == Array("t\r\n".utf8) + [0xE2, 0x82, 0x0D, 0x0A])
    }

    @Test("A facet over text that is not UTF-8 is refused, never shown changed", arguments: ["table", "csv", "json"])
    func invalidUTF8Facet(format: String) throws {
        let database = try TestDatabase.with(
            "CREATE TABLE u(t TEXT); INSERT INTO u VALUES ('ok'), (CAST(x'61ff62' AS TEXT));")
        let result = try database.run(["query", "u", "--facet", "t", "--format", format])
        #expect(result.status == 1)
        #expect(
            result.errors.hasPrefix("Error: --facet t: a value is text that is not UTF-8 (byte 2 is 0xFF)"),
            "\(result.errors)")
        #expect(!result.output.contains("\u{FFFD}"))
    }
}
