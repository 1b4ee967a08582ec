import Testing

@Suite("sqlq --help")
struct HelpTests {
    @Test(
        "Every command has help with examples",
        arguments: [
            [], ["query"], ["watch"], ["tables"], ["schema"], ["migrate"], ["delete"], ["import"], ["sql"],
            ["search-index"],
        ])
    func help(command: [String]) throws {
        let result = try Executable.run(command + ["--help"])
        #expect(result.status == 0)
        #expect(result.errors.isEmpty)
        #expect(result.output.contains("USAGE: sqlq"))
        #expect(result.output.contains("Examples:"))
        #expect(result.output.contains("sqlq \(command.first ?? "query") "))
    }
}
