import Testing

@Suite("sqlq --help")
struct HelpTests {
    static let commands: [[String]] = {
        var commands = [
            [], ["query"], ["watch"], ["tables"], ["schema"], ["migrate"], ["delete"], ["import"], ["sql"],
            ["search-index"], ["install-notifications"],
        ]
        #if HTTP
            commands.append(["serve"])
        #endif
        return commands
    }()

    @Test("Every command has help with examples", arguments: commands)
    func help(command: [String]) throws {
        let result = try Executable.run(command + ["--help"])
        #expect(result.status == 0)
        #expect(result.errors.isEmpty)
        #expect(result.output.contains("USAGE: sqlq"))
        #expect(result.output.contains("Examples:"))
        #expect(result.output.contains("sqlq \(command.first ?? "query") "))
    }

    #if HTTP
        @Test("The command list names serve")
        func commandList() throws {
            let result = try Executable.run(["--help"])
            #expect(result.output.contains("  serve "))
        }
    #endif
}
