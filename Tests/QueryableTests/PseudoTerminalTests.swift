import Glibc
import Queryable
import Testing

/// Drives the terminal presenter through a real pseudo-terminal, so `isatty`, the line
/// discipline and the Ctrl-C handling are the ones a person would meet.
@Suite(.timeLimit(.minutes(1)))
struct PseudoTerminalTests {
    private func presenter(on terminal: PseudoTerminal) -> TerminalPresenter {
        TerminalPresenter(
            input: FileDescriptorLineReader(fileDescriptor: terminal.follower),
            output: FileDescriptorWriter(fileDescriptor: terminal.follower)
        )
    }

    /// Lets the presenter finish before the test closes the terminal it reads.
    private func stop(_ presenting: Task<Void, Never>) async {
        presenting.cancel()
        await presenting.value
    }

    @Test func asksAgainAndAcceptsTypedAnswer() async throws {
        let terminal = try PseudoTerminal()
        let presenter = presenter(on: terminal)
        #expect(presenter.input.isTerminal)
        async let answer = presenter.ask(.confirmation("Ship it?"))
        try await terminal.waitFor("Ship it? [y/n] ")
        terminal.type("perhaps\n")
        try await terminal.waitFor("Ship it? [y/n] ", occurrences: 2)
        terminal.type("y\n")
        #expect(try await answer == true)
        #expect(terminal.shown.contains("Please answer \"y\" or \"n\"."))
    }

    @Test func controlCInterruptsAndRestoresTheTerminal() async throws {
        let terminal = try PseudoTerminal()
        let before = terminal.settings()
        #expect(before.c_lflag & tcflag_t(ISIG) != 0)
        let queryable = Queryable<TerminalQuestion<String>, String>()
        let presenting = Task { await presenter(on: terminal).present(queryable) }
        defer { presenting.cancel() }

        let answer = Task { try await queryable.query(with: .text("Name")) }
        try await terminal.waitFor("Name ")
        // While prompting, Ctrl-C is input rather than a signal.
        #expect(terminal.settings().c_lflag & tcflag_t(ISIG) == 0)
        terminal.type("half-typed\u{03}")
        await #expect(throws: QueryCancellationError(reason: .interrupted)) { try await answer.value }

        let after = terminal.settings()
        #expect(after.c_lflag == before.c_lflag)
        #expect(withUnsafeBytes(of: after.c_cc) { Array($0) } == withUnsafeBytes(of: before.c_cc) { Array($0) })
        await stop(presenting)
    }

    @Test func controlDEndsInput() async throws {
        let terminal = try PseudoTerminal()
        let queryable = Queryable<String, Bool>()
        let presenting = Task { await presenter(on: terminal).present(queryable) { .confirmation($0) } }
        defer { presenting.cancel() }

        let answer = Task { try await queryable.query(with: "Proceed?") }
        try await terminal.waitFor("Proceed? [y/n] ")
        terminal.type("\u{04}")
        await #expect(throws: QueryCancellationError(reason: .endOfInput)) { try await answer.value }
        await stop(presenting)
    }

    @Test func timedOutQuestionStopsReadingTheTerminal() async throws {
        let terminal = try PseudoTerminal()
        let queryable = Queryable<String, String>()
        let presenting = Task {
            await presenter(on: terminal).present(queryable) { .choice($0, options: ["alpha", "beta"]) }
        }
        defer { presenting.cancel() }

        await #expect(throws: QueryCancellationError(reason: .timedOut(after: .milliseconds(30)))) {
            try await queryable.query(with: "Which?", timeout: .milliseconds(30))
        }
        // Only the new question may consume the next line.
        async let next = queryable.query(with: "Which now?")
        try await terminal.waitFor("Which now? [1-2] ")
        terminal.type("2\n")
        #expect(try await next == "beta")
        #expect(terminal.settings().c_lflag & tcflag_t(ISIG) != 0)
        await stop(presenting)
    }
}
