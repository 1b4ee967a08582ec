import ArgumentParser
import Foundation
import SQLite
import Testing

@testable import sqlq

@Suite("Exit statuses and error messages", .onProcessThreads)
struct ExitStatusTests {
    struct Other: Error, CustomStringConvertible {
        var description: String { "something else" }
    }

    @Test("Usage errors are 2, everything else 1")
    func statuses() {
        let schemaError = SchemaError(kind: .unknownTable, name: "x", available: ["items"], suggestion: nil)
        let filterError = FilterError(reason: .syntax("bad"), expression: "a b", position: 2, length: 1)
        #expect(ExitStatus.forError(CommandError.usage("wrong")) == ExitStatus.usage)
        #expect(ExitStatus.forError(CommandError.failure("failed")) == ExitStatus.failure)
        #expect(ExitStatus.forError(filterError) == ExitStatus.usage)
        #expect(ExitStatus.forError(schemaError) == ExitStatus.usage)
        #expect(ExitStatus.forError(ValidationError("bad option")) == ExitStatus.usage)
        #expect(ExitStatus.forError(SQLiteError(code: 1, message: "no such function: f", sql: "SELECT f()")) == 1)
        #expect(ExitStatus.forError(Other()) == ExitStatus.failure)
        #expect([ExitStatus.success, ExitStatus.failure, ExitStatus.usage] == [0, 1, 2])
    }

    @Test("Messages: each error's description (a failure to open is named where the file is opened)")
    func messages() {
        let query = SQLiteError(code: 1, message: "no such function: f", sql: "SELECT f()")
        #expect(ExitStatus.message(for: query) == query.description)
        #expect(ExitStatus.message(for: query).contains("SQL: SELECT f()"))
        #expect(ExitStatus.message(for: CommandError.usage("say what to do")) == "say what to do")
        #expect(ExitStatus.message(for: Other()) == "something else")
    }

    @Test("A filter error quotes the expression and underlines the culprit, in characters")
    func filterErrorCaret() {
        let error = FilterError(
            reason: .typeMismatch("type mismatch: no"), expression: "née = 'x\ty'", position: 6, length: 5)
        #expect(
            error.description.split(separator: "\n").map(String.init) == [
                "--where: type mismatch: no", #"  née = 'x\ty'"#, "        ^^^^^^",
            ])
        let limit = FilterError(
            reason: .limit("too deep"), expression: "(a)", position: 0, length: 1, option: "--where")
        #expect(limit.description.hasPrefix("--where: too deep\n  (a)\n  ^"))
    }

    @Test(
        "The real sqlq exits with each status, with one message on standard error",
        arguments: [
            (["tables"], 0, nil),
            (["query", "items", "--db", "/nonexistent/dir/x.sqlite"], 1, "Error: no such database file"),
            (["sql", "SELECT f()"], 1, "Error: SQLite error 1"),
            (["query", "items", "--where", "priority >"], 2, "Error: --where: expected a column or a value"),
            (["query", "itemz"], 2, "Error: no such table"),
            (["query", "items", "--limit", "-1"], 2, "Error: --limit must be a non-negative integer"),
            (["sql", ""], 2, "Error: the SQL is empty"),
            (["query", "items", "--frobnicate"], 2, "Error: Unknown option '--frobnicate'"),
        ] as [([String], Int32, String?)])
    func process(arguments: [String], status: Int32, message: String?) throws {
        let result = try Executable.run(arguments)
        #expect(result.status == status, "\(result.errors)")
        if let message {
            #expect(result.errors.hasPrefix(message), "\(result.errors)")
            #expect(result.output.isEmpty)
        } else {
            #expect(result.errors.isEmpty)
        }
    }
}
