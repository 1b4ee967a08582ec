import Foundation
import Glibc
import SQLite
import Testing

@testable import sqlq

@Suite("Watch display", .onProcessThreads)
struct WatchDisplayTests {
    static func result(_ titles: [String]) -> ResultSet {
        ResultSet(
            columns: ["id", "title"],
            rows: titles.enumerated().map { [.integer(Int64($0.offset + 1)), .text($0.element)] })
    }

    /// A display writing to a file, and what it wrote.
    final class FileDisplay {
        let directory: TemporaryDirectory
        let handle: FileHandle
        let display: WatchDisplay
        private let file: URL

        init(format: OutputFormat = .tsv, counts: Bool = false) throws {
            directory = try TemporaryDirectory()
            file = directory.file("out")
            _ = FileManager.default.createFile(atPath: file.path, contents: nil)
            handle = try FileHandle(forWritingTo: file)
            display = WatchDisplay(
                output: OutputStream(fileDescriptor: handle.fileDescriptor), format: format, counts: counts)
        }

        var text: String { (try? String(contentsOf: file, encoding: .utf8)) ?? "" }
    }

    /// The status line's time of day.
    static let time = #"\d\d:\d\d:\d\d"#

    @Test("Into a file, each new result follows the last, with a status line and no escapes")
    func intoAFile() throws {
        let output = try FileDisplay()
        output.display.show(Self.result(["one", "two"]), error: nil)
        output.display.show(Self.result(["one", "two"]), error: nil)
        output.display.show(Self.result(["one"]), error: nil)
        output.display.finish()
        let lines = output.text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        try #require(lines.count == 8)
        #expect(lines[0..<3] == ["id\ttitle", "1\tone", "2\ttwo"])
        #expect(lines[3].wholeMatch(of: try Regex("-- 2 rows, last change at " + Self.time)) != nil)
        #expect(lines[4..<6] == ["id\ttitle", "1\tone"], "the same result twice is drawn once")
        #expect(lines[6].wholeMatch(of: try Regex("-- 1 row, last change at " + Self.time)) != nil)
        #expect(lines[7] == "")
        #expect(!output.text.contains("\u{1B}"))
    }

    @Test("A failed refresh keeps the previous result and says why, on one line")
    func failedRefresh() throws {
        let output = try FileDisplay()
        output.display.show(Self.result(["one"]), error: nil)
        output.display.show(Self.result(["one"]), error: "no such table: tasks\n  SQL: SELECT * FROM tasks")
        let blocks = output.text.components(separatedBy: "id\ttitle\n")
        try #require(blocks.count == 3)
        #expect(blocks[2].hasPrefix("1\tone\n-- 1 row, last change at "))
        #expect(
            blocks[2].hasSuffix(
                "; the last refresh failed, showing the previous result: no such table: tasks\n"))
        #expect(
            blocks[1].components(separatedBy: "last change at ")[1].prefix(8)
                == blocks[2].components(separatedBy: "last change at ")[1].prefix(8),
            "an error is not a change of the rows")
    }

    @Test("--count shows the number alone, and a status line without a row count")
    func counts() throws {
        let output = try FileDisplay(counts: true)
        output.display.show(.count(42), error: nil)
        output.display.show(.count(43), error: nil)
        let lines = output.text.split(separator: "\n").map(String.init)
        try #require(lines.count == 4)
        #expect(lines[0] == "42")
        #expect(lines[1].wholeMatch(of: try Regex("-- last change at " + Self.time)) != nil)
        #expect(lines[2] == "43")
    }

    @Test("On a terminal the screen is redrawn in place, cut to the window's height")
    func onATerminal() async throws {
        let terminal = try PseudoTerminal()
        var size = winsize(ws_row: 10, ws_col: 80, ws_xpixel: 0, ws_ypixel: 0)
        #expect(ioctl(terminal.follower, UInt(TIOCSWINSZ), &size) == 0)
        let screen = StreamReader(descriptor: terminal.leader)
        let display = WatchDisplay(output: OutputStream(fileDescriptor: terminal.follower), format: .tsv, counts: false)
        display.show(Self.result((1...8).map { "item \($0)" }), error: nil)
        display.finish()
        try await screen.waitFor("(Ctrl-C to stop)")
        try await screen.waitFor("\u{1B}[?25h")
        let text = screen.text.replacingOccurrences(of: "\r\n", with: "\n")
        #expect(text.hasPrefix("\u{1B}[?25l\u{1B}[H\u{1B}[2J"), "hides the cursor and clears the screen")
        // 10 lines, less 5 for the header, the status and the prompt: 5, of which one says how
        // many more there are.
        #expect(text.contains("id\ttitle\n1\titem 1\n2\titem 2\n3\titem 3\n4\titem 4\n"))
        #expect(!text.contains("item 5"))
        #expect(text.contains("… 4 more rows below"))
        #expect(text.contains("8 rows, last change at "))
        #expect(text.hasSuffix("\u{1B}[?25h"), "gives the cursor back")
    }
}
