/// Answers queries by asking the person at the terminal, for command-line programs.
///
/// ```swift
/// let overwrite = Queryable<String, Bool>()
/// let presenter = Task {
///     await TerminalPresenter(answersWithDefaults: arguments.yes).present(overwrite) { file in
///         .confirmation("Overwrite \(file)?", default: arguments.yes ? true : nil)
///     }
/// }
/// if try await overwrite.query(with: "config.json") { /* ... */ }
/// ```
///
/// Invalid answers are explained and asked again. End of input cancels the query with
/// ``QueryCancellationError/Reason/endOfInput``, Ctrl-C with ``QueryCancellationError/Reason/interrupted``.
/// When the input is not a terminal, a question's default answer is used without asking;
/// a question without one fails with ``TerminalPresenterError/inputIsNotATerminal(prompt:)``.
public struct TerminalPresenter: Sendable {
    /// Where answers are read from.
    public let input: any TerminalLineReader
    /// Where questions are written to.
    public let output: any TerminalWriter
    /// Whether questions with a default answer are answered with it without asking,
    /// as a `--yes` flag would request.
    public let answersWithDefaults: Bool

    /// Creates a presenter.
    /// - Parameters:
    ///   - input: Defaults to standard input.
    ///   - output: Defaults to standard error, so prompts do not mix with the program's output.
    ///   - answersWithDefaults: Use default answers without asking, as for a `--yes` flag.
    public init(
        input: any TerminalLineReader = FileDescriptorLineReader.standardInput,
        output: any TerminalWriter = FileDescriptorWriter.standardError,
        answersWithDefaults: Bool = false
    ) {
        self.input = input
        self.output = output
        self.answersWithDefaults = answersWithDefaults
    }

    /// Asks one question and returns the answer, asking again until the answer is valid.
    ///
    /// ```swift
    /// let name = try await TerminalPresenter().ask(.text("Project name", default: "demo"))
    /// ```
    ///
    /// - Throws: ``QueryCancellationError`` for end of input or Ctrl-C,
    ///   ``TerminalPresenterError`` when no one can answer or the streams fail,
    ///   `CancellationError` when the calling task is cancelled.
    public func ask<Answer>(_ question: TerminalQuestion<Answer>) async throws -> Answer {
        if let defaultAnswer = question.defaultAnswer, answersWithDefaults || !input.isTerminal {
            try output.write(question.prompt + question.describe(defaultAnswer) + "\n")
            return defaultAnswer
        }
        guard input.isTerminal else {
            throw TerminalPresenterError.inputIsNotATerminal(prompt: question.message)
        }

        input.enterPromptMode()
        defer { input.leavePromptMode() }
        for line in question.details {
            try output.write(line + "\n")
        }
        while true {
            try output.write(question.prompt)
            let event: TerminalInputEvent
            do {
                event = try await input.readLine()
            } catch {
                // Leave the cursor on a fresh line rather than after an abandoned prompt.
                try? output.write("\n")
                throw error
            }
            switch event {
            case .line(let line):
                if line.trimmingWhitespace().isEmpty, let defaultAnswer = question.defaultAnswer {
                    return defaultAnswer
                }
                switch question.interpret(line) {
                case .answer(let answer):
                    return answer
                case .invalid(let reason):
                    try output.write(reason + "\n")
                }
            case .endOfInput:
                try? output.write("\n")
                throw QueryCancellationError(reason: .endOfInput)
            case .interrupted:
                try? output.write("\n")
                throw QueryCancellationError(reason: .interrupted)
            }
        }
    }

    /// Answers every query of `queryable` at the terminal until the calling task is cancelled.
    ///
    /// A query that ends while its question is shown (timeout, `cancel()`, a newer query)
    /// stops waiting for input at once.
    ///
    /// - Parameters:
    ///   - queryable: The queryable whose queries are answered.
    ///   - question: Builds the question to ask for a query's input.
    public func present<Input, Answer>(
        _ queryable: Queryable<Input, Answer>,
        question: @escaping @Sendable (Input) -> TerminalQuestion<Answer>
    ) async {
        await queryable.answerQueries { input in
            try await ask(question(input))
        }
    }

    /// Answers every query of a queryable whose input is the question itself.
    ///
    /// ```swift
    /// let prompts = Queryable<TerminalQuestion<Bool>, Bool>()
    /// // presenter:
    /// await TerminalPresenter().present(prompts)
    /// // anywhere else:
    /// let ok = try await prompts.query(with: .confirmation("Continue?"))
    /// ```
    public func present<Answer>(_ queryable: Queryable<TerminalQuestion<Answer>, Answer>) async {
        await present(queryable) { $0 }
    }
}
