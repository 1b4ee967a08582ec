import Foundation
import SQLite
import Testing

@testable import sqlq

/// Long and deep filters: what works, and the clear usage error for what SQLite cannot run.
/// Each runs the real `sqlq`, so that a stack overflow shows as a crash, not as a test that
/// stops.
@Suite("Filter limits", .onProcessThreads)
struct FilterLimitsTests {
    @Test("4,000 ORed terms run, and count what SQLite counts")
    func longDisjunction() throws {
        let filter = (1...4000).map { "id = \($0)" }.joined(separator: " or ")
        let result = try Executable.run(["query", "items", "--where", filter, "--count"])
        #expect(result.status == 0, "\(result.errors.prefix(300))")
        #expect(result.output == "4000\n")
    }

    @Test("4,000 ANDed terms run")
    func longConjunction() throws {
        let filter = (1...4000).map { "id != \($0)" }.joined(separator: " and ")
        let result = try Executable.run(["query", "items", "--where", filter, "--count"])
        #expect(result.status == 0, "\(result.errors.prefix(300))")
        #expect(result.output == "8000\n")
    }

    @Test("Chains of not fold: 5,000 and 5,001 of them")
    func chainedNots() throws {
        let demo = try TestDatabase.demo()
        let done = try demo.count("SELECT count(*) FROM items WHERE done")
        let even = try demo.run([
            "query", "items", "--where", String(repeating: "not ", count: 5000) + "done", "--count",
        ])
        #expect(even.status == 0, "\(even.errors.prefix(300))")
        #expect(even.output == "\(done)\n")
        let odd = try demo.run([
            "query", "items", "--where",
            String(repeating: "not (", count: 5001) + "done" + String(repeating: ")", count: 5001),
            "--count",
        ])
        #expect(odd.status == 0, "\(odd.errors.prefix(300))")
        #expect(odd.output == "\(12000 - done)\n")
    }

    @Test("30,000 nested parentheses around one condition run")
    func nestedParentheses() throws {
        let filter = String(repeating: "(", count: 30000) + "id = 7" + String(repeating: ")", count: 30000)
        let result = try Executable.run(["query", "items", "--where", filter, "--count"])
        #expect(result.status == 0, "\(result.errors.prefix(300))")
        #expect(result.output == "1\n")
    }

    @Test("Left-nested generated groups flatten: (((a or b) or c) or …) with 3,000 terms")
    func leftNestedGroups() throws {
        var filter = "id = 1"
        for id in 2...3000 { filter = "(\(filter) or id = \(id))" }
        let result = try Executable.run(["query", "items", "--where", filter, "--count"])
        #expect(result.status == 0, "\(result.errors.prefix(300))")
        #expect(result.output == "3000\n")
    }

    @Test("1,500 --where options run")
    func manyFilters() throws {
        let result = try Executable.run(
            ["query", "items", "--count"] + (1...1500).flatMap { ["--where", "id != \($0)"] })
        #expect(result.status == 0, "\(result.errors.prefix(300))")
        #expect(result.output == "10500\n")
    }

    @Test("1,500 --where options delete, as one balanced condition")
    func manyDeleteFilters() throws {
        let result = try Executable.run(
            ["delete", "items", "--yes"] + (1...1500).flatMap { ["--where", "id != \($0)"] })
        #expect(result.status == 0, "\(result.errors.prefix(300))")
        #expect(result.output.contains("10500"), "\(result.output.prefix(300))")
    }

    @Test(
        "Groups nested deeper than SQLite reads are a usage error that names the limit",
        arguments: [
            (100, "or (", "and ("),
            (100, "and not (", "or not ("),
            (5000, "or (", "and ("),
        ])
    func tooDeep(levels: Int, odd: String, even: String) throws {
        var filter = ""
        for level in 0..<levels { filter += "id = \(level) " + (level % 2 == 0 ? even : odd) }
        filter += "done" + String(repeating: ")", count: levels)
        let result = try Executable.run(["query", "items", "--where", filter, "--count"])
        #expect(result.status == 2)
        let lines = result.errors.split(separator: "\n").map(String.init)
        #expect(lines.first?.contains("nested too deeply") == true, "\(result.errors.prefix(300))")
        #expect(lines.first?.contains("at most 16 levels") == true)
        #expect(!result.errors.contains("SELECT"))
        #expect(lines.count == 3 && lines[2].contains("^"))
        #expect(result.output.isEmpty)
    }

    @Test("An error in a long filter quotes the part around the culprit, with the caret under it")
    func longFilterError() throws {
        var terms = (1...4000).map { "id = \($0)" }
        terms[2999] = "priority = 'high'"
        let result = try Executable.run(["query", "items", "--where", terms.joined(separator: " or "), "--count"])
        #expect(result.status == 2)
        let lines = result.errors.split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        guard lines.count == 3 else { return }
        #expect(lines[0].hasSuffix("holds numbers, but the string 'high' is text"))
        #expect(lines[1].hasPrefix("  …") && lines[1].hasSuffix("…") && lines[1].count == 2 + 1 + 100 + 1)
        let caret = try #require(lines[2].firstIndex(of: "^"))
        let column = lines[2].distance(from: lines[2].startIndex, to: caret)
        #expect(lines[1].dropFirst(column).hasPrefix("'high'"))
        #expect(lines[2].hasSuffix("^^^^^^"))
    }

    @Test("An in list runs up to what one statement binds, and the refusal says how many fit and why")
    func longInList() throws {
        let database = try TestDatabase.with("CREATE TABLE t(x INTEGER); INSERT INTO t VALUES (1), (5);")
        func list(_ count: Int) -> String {
            "x in (" + Array(repeating: "1", count: count).joined(separator: ",") + ")"
        }
        // No limit, offset or facet: every value SQLite binds is the filter's.
        let full = try database.run(["query", "t", "--where", list(32_766), "--count"])
        #expect(full.status == 0, "\(full.errors.prefix(300))")
        #expect(full.output == "1\n")
        let rows = try database.run(["query", "t", "--where", list(32_766), "--format", "csv"])
        #expect(rows.output == "x\r\n1\r\n")
        let over = try database.run(["query", "t", "--where", list(32_767), "--count"])
        #expect(over.status == 2)
        #expect(
            over.errors.hasPrefix(
                "Error: --where: too many values: SQLite binds at most 32766 values in one query; "),
            "\(over.errors.prefix(300))")
        // A limit and an offset take two of them, and the message says so.
        let limited = try database.run(["query", "t", "--where", list(32_765), "--limit", "1", "--offset", "0"])
        #expect(limited.status == 2)
        #expect(
            limited.errors.hasPrefix(
                "Error: --where: too many values: SQLite binds at most 32766 values in one query, "
                    + "and --limit and --offset take 2 of them; "), "\(limited.errors.prefix(300))")
        let fits = try database.run(["query", "t", "--where", list(32_764), "--limit", "1", "--offset", "0"])
        #expect(fits.status == 0, "\(fits.errors.prefix(300))")
        let limit = try database.run(["query", "t", "--where", list(32_765), "--limit", "1"])
        #expect(limit.status == 0, "\(limit.errors.prefix(300))")
        let overLimit = try database.run(["query", "t", "--where", list(32_766), "--limit", "1"])
        #expect(overLimit.errors.contains("and --limit takes 1 of them"), "\(overLimit.errors.prefix(300))")
        let facet = try database.run(["query", "t", "--where", list(32_766), "--facet", "x"])
        #expect(facet.status == 2)
        #expect(facet.errors.contains("and --facet takes 1 of them"), "\(facet.errors.prefix(300))")
        #expect(try database.run(["query", "t", "--where", list(32_765), "--facet", "x"]).status == 0)
    }
}
