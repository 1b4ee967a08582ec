import Foundation
import SQLite
import Testing

@testable import sqlq

/// sqlq's output of every format, checked byte for byte against ``ReferenceWriters``, the
/// writers as they were before they wrote from SQLite's buffers.
@Suite("Output is byte for byte the reference writers'", .onProcessThreads)
struct ReferenceOutputTests {
    static let schema = """
        CREATE TABLE hostile(id INTEGER PRIMARY KEY, t TEXT, i INTEGER, r REAL, n NUMERIC, b BLOB, u);
        """

    /// Texts that exercise every escape of every format: quotes, separators, line breaks, control
    /// characters, DEL, combining marks, wide characters, text that reads as a number or a blob,
    /// and long values.
    static let texts: [DatabaseValue] = [
        .null, .text(""), .text(" "), .text("  \t "), .text("\t"), .text("a,b"), .text("say \"hi\""), .text("\""),
        .text("line\nbreak"), .text("cr\rhere"), .text("crlf\r\n"), .text("\r\n\r\n"), .text("\n"), .text("tab\tx"),
        .text("pipe | and \\ backslash"), .text("\u{7F}del"), .text("\u{1}\u{2}\u{1F}"), .text("\u{0}nul"),
        .text("e\u{301}, n\u{303}"), .text("👩‍👩‍👧 🇫🇷"), .text("\u{FEFF}bom"), .text("日本語の文"), .text("ÿ"),
        .text(String(repeating: "long, \"quoted\"\n text ", count: 5_000)), .text("12"), .text("-0.5"),
        .text("+3"), .text(".5"), .text("7."), .text("1e5"), .text("1E+5"), .text("1e"), .text("007"),
        .text(" 12"), .text("12 "), .text("\t12\n"), .text("0x1A"), .text("nan"), .text("inf"), .text("1e999"),
        .text("-"), .text("."), .text("+"), .text("X'00'"), .text("x''"), .text("X'00"), .text("X"), .text("Xavier"),
        .text("NULL"), .text("null"), .text("\\N"), .text("{\"$base64\":true,\"encoded\":\"AA==\"}"),
        .text("trailing   "), .text("2026-01-02 03:04:05.000"), .text("99999999999999999999"),
        .blob([]), .blob([0]), .blob([0xFF, 0x00, 0x0A]), .blob(Array(0...255)),
    ]

    static let numbers: [DatabaseValue] = [
        .integer(.min), .integer(.max), .integer(0), .integer(-1), .integer(7), .integer(1_000_000_007),
        .real(.infinity), .real(-.infinity), .real(1e-300), .real(.leastNonzeroMagnitude), .real(1.5), .real(0.1),
        .real(-0.0), .real(0), .real(.greatestFiniteMagnitude), .real(-2.5e-7), .real(1e16), .real(3),
        .real(0.1 + 0.2), .real(123_456_789.125), .real(1e15), .real(-1e-5), .null,
    ]

    static func hostile() throws -> TestDatabase {
        let database = try TestDatabase.with(schema)
        let db = try Database(path: database.path)
        let columns = [
            texts, numbers.filter { !$0.isReal }, numbers, texts + numbers, numbers + texts, texts.reversed(),
        ]
        for index in 0..<columns.map(\.count).max()! {
            try db.execute(
                "INSERT INTO hostile(t, i, r, n, b, u) VALUES (?, ?, ?, ?, ?, ?)",
                columns.map { index < $0.count ? $0[index] : .null })
        }
        // Text that is not UTF-8 is left to RoundTripTests.invalidUTF8: the reference writers
        // repaired it, which no format does any more.
        return database
    }

    static func expect(_ arguments: [String], database: TestDatabase?, sql: String, format: OutputFormat) throws {
        let result = try database.map { try $0.run(arguments) } ?? (try Executable.run(arguments))
        #expect(result.status == 0, "\(result.errors)")
        let source = try database ?? TestDatabase.demo()
        let expected = try source.read { db in
            ReferenceWriters.render(format, try ResultSet.fetch(db, sql: sql, arguments: []))
        }
        guard result.output != expected else { return }
        let got = Array(result.output.utf8)
        let want = Array(expected.utf8)
        let first = (0..<min(got.count, want.count)).first { got[$0] != want[$0] } ?? min(got.count, want.count)
        Issue.record(
            """
            \(arguments) differs from the reference at byte \(first) (\(got.count) bytes, reference \(want.count)):
            got       \(String(decoding: got[max(0, first - 80)..<min(got.count, first + 80)], as: UTF8.self).debugDescription)
            reference \(String(decoding: want[max(0, first - 80)..<min(want.count, first + 80)], as: UTF8.self).debugDescription)
            """)
    }

    @Test("Hostile values, every format, by query and by sql", arguments: OutputFormat.allCases)
    func hostileValues(format: OutputFormat) throws {
        let database = try Self.hostile()
        try Self.expect(
            ["query", "hostile", "--format", format.rawValue], database: database,
            sql: "SELECT * FROM hostile", format: format)
        let sql =
            "SELECT t AS \"a,b\", i AS \"say \"\"hi\"\"\", r AS \"tab\tpipe|\", u AS \"\", n AS \"日本\" FROM hostile"
        try Self.expect(["sql", sql, "--format", format.rawValue], database: database, sql: sql, format: format)
    }

    @Test("The demo database, every format", arguments: OutputFormat.allCases)
    func demo(format: OutputFormat) throws {
        try Self.expect(
            ["query", "items", "--format", format.rawValue], database: nil, sql: "SELECT * FROM items", format: format)
    }

    @Test("On a terminal, a table longer than the layout window is laid out from its first rows, then streams")
    func terminalWindow() async throws {
        let terminal = try PseudoTerminal()
        let command = try RunningCommand(["query", "items"], environment: ["NO_COLOR": "1"], terminal: terminal)
        #expect(try await command.exitStatus() == 0)
        try await command.output.waitFor("(12000 rows)")
        let lines = command.output.text.split(whereSeparator: \.isNewline).map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        let header = try #require(lines.first)
        #expect(header.hasPrefix("id | list_id | title"))
        let rows = lines.dropFirst(2).dropLast()
        #expect(rows.count == 12_000)
        #expect(rows.allSatisfy { $0.count { $0 == "|" } == 7 })
        #expect(rows.last?.hasPrefix("12000 |") == true)
    }

    @Test("Empty results and results with no rows", arguments: OutputFormat.allCases)
    func empty(format: OutputFormat) throws {
        let database = try Self.hostile()
        let sql = "SELECT * FROM hostile WHERE id < 0"
        try Self.expect(["sql", sql, "--format", format.rawValue], database: database, sql: sql, format: format)
    }

    @Test("Results written from memory (watch, tables, schema) match too", arguments: OutputFormat.allCases)
    func inMemory(format: OutputFormat) throws {
        let database = try Self.hostile()
        let result = try database.read { db in try ResultSet.fetch(db, sql: "SELECT * FROM hostile", arguments: []) }
        for style in [TextStyle.plain, TextStyle(isEnabled: true)] {
            #expect(
                try RowWriterTests.render(format, result, style: style)
                    == ReferenceWriters.render(format, result, style: style))
        }
    }
}

extension DatabaseValue {
    fileprivate var isReal: Bool {
        if case .real = self { return true }
        return false
    }
}
