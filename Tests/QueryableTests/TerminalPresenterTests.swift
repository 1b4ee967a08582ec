import Queryable
import Testing

@Suite(.timeLimit(.minutes(1)))
struct TerminalPresenterTests {
    @Test func confirmationAcceptsYes() async throws {
        let input = ScriptedLineReader(script: [.line("Yes")])
        let output = RecordingWriter()
        let answer = try await TerminalPresenter(input: input, output: output)
            .ask(.confirmation("Delete 3 files?"))
        #expect(answer == true)
        #expect(output.written == "Delete 3 files? [y/n] ")
        #expect(input.promptModeEntries == 1)
        #expect(input.promptModeDepth == 0)
    }

    @Test func invalidAnswerIsExplainedAndAskedAgain() async throws {
        let input = ScriptedLineReader(script: [.line("maybe"), .line(" n ")])
        let output = RecordingWriter()
        let answer = try await TerminalPresenter(input: input, output: output)
            .ask(.confirmation("Continue?", default: true))
        #expect(answer == false)
        #expect(output.written == "Continue? [Y/n] Please answer \"y\" or \"n\".\nContinue? [Y/n] ")
    }

    @Test func emptyLinePicksTheDefault() async throws {
        let input = ScriptedLineReader(script: [.line("")])
        let answer = try await TerminalPresenter(input: input, output: RecordingWriter())
            .ask(.confirmation("Continue?", default: false))
        #expect(answer == false)
        #expect(input.reads == 1)
    }

    @Test func emptyLineWithoutDefaultIsAskedAgain() async throws {
        let input = ScriptedLineReader(script: [.line(""), .line("y")])
        let answer = try await TerminalPresenter(input: input, output: RecordingWriter())
            .ask(.confirmation("Continue?"))
        #expect(answer == true)
        #expect(input.reads == 2)
    }

    @Test func choiceAcceptsNumberOrLabel() async throws {
        let output = RecordingWriter()
        let question = TerminalQuestion.choice("Pick a color", options: ["red", "green", "blue"], default: "green")
        let byNumber = try await TerminalPresenter(input: ScriptedLineReader(script: [.line("3")]), output: output)
            .ask(question)
        #expect(byNumber == "blue")
        #expect(output.written == "  1) red\n  2) green (default)\n  3) blue\nPick a color [1-3, default 2] ")
        let byLabel = try await TerminalPresenter(
            input: ScriptedLineReader(script: [.line("RED")]), output: RecordingWriter()
        )
        .ask(question)
        #expect(byLabel == "red")
    }

    @Test func choiceRejectsOutOfRangeNumbers() async throws {
        let input = ScriptedLineReader(script: [.line("0"), .line("4"), .line("2")])
        let output = RecordingWriter()
        let answer = try await TerminalPresenter(input: input, output: output)
            .ask(.choice("Pick", options: [10, 20, 30]))
        #expect(answer == 20)
        #expect(output.written.occurrences(of: "Please enter a number from 1 to 3.") == 2)
    }

    @Test func textIsValidatedAndTrimmed() async throws {
        let input = ScriptedLineReader(script: [.line("eighty"), .line("  8080 ")])
        let output = RecordingWriter()
        let answer = try await TerminalPresenter(input: input, output: output)
            .ask(.text("Port") { Int($0) == nil ? "Please enter a number." : nil })
        #expect(answer == "8080")
        #expect(output.written.contains("Please enter a number.\n"))
    }

    @Test func textRequiresAValueByDefault() async throws {
        let input = ScriptedLineReader(script: [.line("   "), .line("demo")])
        let output = RecordingWriter()
        let answer = try await TerminalPresenter(input: input, output: output).ask(.text("Name"))
        #expect(answer == "demo")
        #expect(output.written.contains("Please enter a value."))
    }

    @Test func endOfInputCancelsTheQuery() async throws {
        let input = ScriptedLineReader(script: [.endOfInput])
        let queryable = Queryable<String, Bool>()
        let presenter = Task {
            await TerminalPresenter(input: input, output: RecordingWriter()).present(queryable) { .confirmation($0) }
        }
        defer { presenter.cancel() }
        await #expect(throws: QueryCancellationError(reason: .endOfInput)) {
            try await queryable.query(with: "Continue?")
        }
        #expect(input.promptModeDepth == 0)
    }

    @Test func controlCCancelsTheQuery() async throws {
        let input = ScriptedLineReader(script: [.interrupted])
        let prompts = Queryable<TerminalQuestion<String>, String>()
        let presenter = Task { await TerminalPresenter(input: input, output: RecordingWriter()).present(prompts) }
        defer { presenter.cancel() }
        await #expect(throws: QueryCancellationError(reason: .interrupted)) {
            try await prompts.query(with: .text("Name"))
        }
    }

    @Test func noTerminalWithoutDefaultRefusesWithATypedError() async throws {
        let input = ScriptedLineReader(isTerminal: false, script: [.line("y")])
        let queryable = Queryable<String, Bool>()
        let presenter = Task {
            await TerminalPresenter(input: input, output: RecordingWriter()).present(queryable) { .confirmation($0) }
        }
        defer { presenter.cancel() }
        await #expect(throws: TerminalPresenterError.inputIsNotATerminal(prompt: "Delete?")) {
            try await queryable.query(with: "Delete?")
        }
        #expect(input.reads == 0)
        #expect(TerminalPresenterError.inputIsNotATerminal(prompt: "Delete?").description.contains("--yes"))
    }

    @Test func noTerminalUsesTheDefaultWithoutReading() async throws {
        let input = ScriptedLineReader(isTerminal: false)
        let output = RecordingWriter()
        let answer = try await TerminalPresenter(input: input, output: output)
            .ask(.confirmation("Delete?", default: true))
        #expect(answer == true)
        #expect(input.reads == 0)
        #expect(output.written == "Delete? [Y/n] yes\n")
    }

    @Test func answersWithDefaultsSkipsTheQuestionOnATerminal() async throws {
        let input = ScriptedLineReader(isTerminal: true)
        let answer = try await TerminalPresenter(input: input, output: RecordingWriter(), answersWithDefaults: true)
            .ask(.choice("Pick", options: ["a", "b"], default: "b"))
        #expect(answer == "b")
        #expect(input.reads == 0)
    }

    @Test func answersWithDefaultsStillAsksWhenThereIsNoDefault() async throws {
        let input = ScriptedLineReader(script: [.line("n")])
        let answer = try await TerminalPresenter(input: input, output: RecordingWriter(), answersWithDefaults: true)
            .ask(.confirmation("Continue?"))
        #expect(answer == false)
        #expect(input.reads == 1)
    }

    @Test func presenterAnswersQueriesOneAfterAnother() async throws {
        let input = ScriptedLineReader()
        let output = RecordingWriter()
        let queryable = Queryable<String, Bool>()
        let presenter = Task {
            await TerminalPresenter(input: input, output: output).present(queryable) { .confirmation($0) }
        }
        defer { presenter.cancel() }

        async let first = queryable.query(with: "First?")
        await output.waitFor("First? [y/n] ")
        input.send(.line("y"))
        #expect(try await first == true)

        async let second = queryable.query(with: "Second?")
        await output.waitFor("Second? [y/n] ")
        input.send(.line("n"))
        #expect(try await second == false)
    }

    @Test func queryEndingWhileAskingStopsReading() async throws {
        let input = ScriptedLineReader()
        let output = RecordingWriter()
        let queryable = Queryable<String, Bool>()
        let presenter = Task {
            await TerminalPresenter(input: input, output: output).present(queryable) { .confirmation($0) }
        }
        defer { presenter.cancel() }

        let asker = Task { try await queryable.query(with: "Abandoned?") }
        await input.waitForRead(number: 1)
        queryable.cancel()
        await #expect(throws: QueryCancellationError(reason: .cancelRequested)) { try await asker.value }

        // The abandoned read was cancelled, so the next question gets the next line.
        async let next = queryable.query(with: "Next?")
        await input.waitForRead(number: 2)
        #expect(input.promptModeDepth == 1)
        input.send(.line("y"))
        #expect(try await next == true)
        #expect(output.written.contains("Abandoned? [y/n] \nNext? [y/n] "))
    }
}
