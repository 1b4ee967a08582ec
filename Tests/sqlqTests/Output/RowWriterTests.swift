import Foundation
import SQLite
import Testing

@testable import sqlq

@Suite("Output formats", .onProcessThreads)
struct RowWriterTests {
    static let result = ResultSet(
        columns: ["id", "title", "score", "note", "data"],
        rows: [
            [.integer(1), .text("plain"), .real(1.5), .null, .blob([0xCA, 0xFE])],
            [.integer(22), .text("comma, \"quote\"\nnew line"), .real(-2), .text("tab\there | pipe \\"), .null],
            [.integer(-3), .text("été ✓"), .null, .text(""), .blob([])],
        ])

    /// What `format` writes for `result`.
    static func render(_ format: OutputFormat, _ result: ResultSet = result, style: TextStyle = .plain) throws -> String
    {
        let directory = try TemporaryDirectory()
        let file = directory.file("out")
        _ = FileManager.default.createFile(atPath: file.path, contents: nil)
        let handle = try FileHandle(forWritingTo: file)
        let output = OutputStream(fileDescriptor: handle.fileDescriptor)
        format.makeWriter(output: output, style: style).write(result)
        output.flush()
        try handle.close()
        return String(decoding: try Data(contentsOf: file), as: UTF8.self)
    }

    @Test("CSV reads back as the same values: NULL an empty field, the empty string quoted, blobs X'…'")
    func csvRoundTrip() throws {
        let csv = try Self.render(.csv)
        #expect(csv.hasPrefix("id,title,score,note,data\r\n1,plain,1.5,,X'CAFE'\r\n"))
        #expect(csv.contains("22,\"comma, \"\"quote\"\"\nnew line\",-2.0,"))
        var reader = try CSVReader(bytes: Array(csv.utf8), file: "out.csv")
        var rows: [[DatabaseValue]] = []
        while let record = try reader.next() {
            #expect(record.columns == Self.result.columns)
            rows.append(record.values)
        }
        // Numbers read back as text, which a column's affinity converts; everything else as it was.
        let expected = Self.result.rows.map { row in
            row.map { value -> DatabaseValue in
                switch value {
                case .integer, .real: .text(value.cellText)
                default: value
                }
            }
        }
        #expect(csv.hasSuffix("-3,été ✓,,\"\",X''\r\n"))
        #expect(rows == expected)
    }

    @Test("CSV doubles every quote, also one that a combining mark joins into one character with the next")
    func csvQuoteWithMark() throws {
        let result = ResultSet(columns: ["a\"\u{301}"], rows: [[.text("\"\u{301}x, \"")], [.text("q\"\u{20DD}")]])
        let csv = try Self.render(.csv, result)
        #expect(csv == "\"a\"\"\u{301}\"\r\n\"\"\"\u{301}x, \"\"\"\r\n\"q\"\"\u{20DD}\"\r\n")
        var reader = try CSVReader(bytes: Array(csv.utf8), file: "out.csv")
        #expect(reader.header == ["a\"\u{301}"])
        #expect(try reader.next()?.values == [.text("\"\u{301}x, \"")])
        #expect(try reader.next()?.values == [.text("q\"\u{20DD}")])
    }

    @Test("JSON is an array of objects with typed values; NDJSON one object per line")
    func json() throws {
        let json = try Self.render(.json)
        let array = try #require(JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])
        #expect(array.count == 3)
        #expect(array[0]["id"] as? Int == 1)
        #expect(array[0]["score"] as? Double == 1.5)
        #expect(array[0]["note"] is NSNull)
        #expect((array[0]["data"] as? [String: Any])?["encoded"] as? String == "yv4=")
        #expect(array[1]["title"] as? String == "comma, \"quote\"\nnew line")
        #expect(array[1]["note"] as? String == "tab\there | pipe \\")
        #expect(array[2]["title"] as? String == "été ✓")

        let ndjson = try Self.render(.ndjson)
        let lines = ndjson.split(separator: "\n")
        #expect(lines.count == 3)
        for (line, object) in zip(lines, array) {
            let parsed = try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(parsed["id"] as? Int == object["id"] as? Int)
        }
        #expect(try Self.render(.json, ResultSet(columns: ["a"], rows: [])) == "[]\n")
    }

    @Test("TSV escapes tabs, line breaks and backslashes")
    func tsv() throws {
        let lines = try Self.render(.tsv).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines[0] == "id\ttitle\tscore\tnote\tdata")
        #expect(lines[1] == "1\tplain\t1.5\t\\N\tX'CAFE'")
        #expect(lines[2] == "22\tcomma, \"quote\"\\nnew line\t-2.0\ttab\\there | pipe \\\\\t\\N")
        #expect(lines.count == 5 && lines[4].isEmpty)
    }

    @Test("Markdown escapes pipes and line breaks and right-aligns number columns")
    func markdown() throws {
        let lines = try Self.render(.markdown).split(separator: "\n").map(String.init)
        #expect(lines[0] == "|  id | title                      | score | note                | data    |")
        #expect(lines[1] == "|----:|----------------------------|------:|---------------------|---------|")
        #expect(lines[3] == #"|  22 | comma, "quote"<br>new line |  -2.0 | tab here \| pipe \\ | NULL    |"#)
        #expect(lines.count == 5)
    }

    @Test("Tables align columns, show NULL and count the rows")
    func table() throws {
        let lines = try Self.render(.table).split(separator: "\n").map(String.init)
        #expect(lines[0] == " id | title                    | score | note               | data")
        #expect(lines[1] == "----+--------------------------+-------+--------------------+---------")
        #expect(lines[2] == "  1 | plain                    |   1.5 | NULL               | X'CAFE'")
        #expect(lines[3] == #" 22 | comma, "quote"\nnew line |  -2.0 | tab\there | pipe \ | NULL"#)
        #expect(lines[4] == " -3 | été ✓                    |  NULL |                    | X''")
        #expect(lines[5] == "(3 rows)")
    }

    @Test("Colour only when asked: bold headers, dim NULLs")
    func colour() throws {
        #expect(!(try Self.render(.table)).contains("\u{1B}["))
        let coloured = try Self.render(.table, style: TextStyle(isEnabled: true))
        #expect(coloured.contains(" \u{1B}[1mid\u{1B}[0m | "))
        #expect(coloured.contains("\u{1B}[2mNULL"))
    }

    @Test("TSV writes NULL as \\N and the empty string as an empty field; a text \\N stays apart")
    func tsvNull() throws {
        let result = ResultSet(columns: ["a", "b"], rows: [[.null, .text("")], [.text("\\N"), .text("N")]])
        #expect(try Self.render(.tsv, result) == "a\tb\n\\N\t\n\\\\N\tN\n")
    }

    @Test("TSV and Markdown escape control characters as the table format does")
    func controlCharacters() throws {
        let result = ResultSet(columns: ["t"], rows: [[.text("\u{1B}[31mred\u{7}")], [.text("del\u{7F}é\u{1B}")]])
        #expect(try Self.render(.tsv, result) == "t\n\\x1b[31mred\\x07\ndel\\x7fé\\x1b\n")
        #expect(
            try Self.render(.markdown, result)
                == "| t               |\n|-----------------|\n| \\x1b[31mred\\x07 |\n| del\\x7fé\\x1b    |\n")
        #expect(
            try Self.render(.table, result) == " t\n-----------------\n \\x1b[31mred\\x07\n del\\x7fé\\x1b\n(2 rows)\n")
    }

    @Test("Table and Markdown columns align by terminal width: wide characters take two, marks none")
    func displayWidth() throws {
        let result = ResultSet(
            columns: ["name", "n"],
            rows: [
                [.text("漢字"), .integer(1)], [.text("ab"), .integer(2)], [.text("e\u{301}"), .integer(3)],
                [.text("👩‍👩‍👧"), .integer(4)], [.text("ｗｉｄｅ"), .integer(5)],
            ])
        #expect(
            try Self.render(.table, result) == """
                 name     | n
                ----------+---
                 漢字     | 1
                 ab       | 2
                 e\u{301}        | 3
                 👩‍👩‍👧       | 4
                 ｗｉｄｅ | 5
                (5 rows)

                """)
        #expect(
            try Self.render(.markdown, result) == """
                | name     |   n |
                |----------|----:|
                | 漢字     |   1 |
                | ab       |   2 |
                | e\u{301}        |   3 |
                | 👩‍👩‍👧       |   4 |
                | ｗｉｄｅ |   5 |

                """)
        #expect(TextBytes.displayWidth("🇫🇷") == 2)
        #expect(TextBytes.displayWidth("❤\u{FE0F}") == 2)
        #expect(TextBytes.displayWidth("한국어") == 6)
        #expect(TextBytes.displayWidth("\u{200B}") == 0)
    }
}
