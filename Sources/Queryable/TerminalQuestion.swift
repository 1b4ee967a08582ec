/// A question a ``TerminalPresenter`` can ask: yes/no, a choice from a list, or free text.
///
/// ```swift
/// let overwrite = TerminalQuestion.confirmation("Overwrite config.json?", default: false)
/// let color = TerminalQuestion.choice("Pick a color", options: ["red", "green"], default: "green")
/// let name = TerminalQuestion.text("Project name")
/// ```
///
/// An empty answer picks ``defaultAnswer`` when there is one. Anything ``interpret`` rejects is
/// explained to the person and asked again.
public struct TerminalQuestion<Answer: Sendable>: Sendable {
    /// How one typed line is understood.
    public enum Interpretation: Sendable {
        /// The line is a valid answer.
        case answer(Answer)
        /// The line is not acceptable; `reason` is shown before asking again.
        case invalid(reason: String)
    }

    /// The question itself, for example "Overwrite config.json?".
    public let message: String
    /// Lines shown once before the first prompt, for example the numbered options of a choice.
    public let details: [String]
    /// A short hint shown after the message, for example "[y/N]".
    public let hint: String
    /// Used for an empty line, and without asking when no one can answer (no terminal, `--yes`).
    public let defaultAnswer: Answer?
    /// Turns an answer into the text echoed when the default is used without asking.
    public let describe: @Sendable (Answer) -> String
    /// Interprets one typed line (without its line ending).
    public let interpret: @Sendable (String) -> Interpretation

    /// Creates a custom question.
    public init(
        message: String,
        details: [String] = [],
        hint: String = "",
        defaultAnswer: Answer? = nil,
        describe: @escaping @Sendable (Answer) -> String = { "\($0)" },
        interpret: @escaping @Sendable (String) -> Interpretation
    ) {
        self.message = message
        self.details = details
        self.hint = hint
        self.defaultAnswer = defaultAnswer
        self.describe = describe
        self.interpret = interpret
    }

    /// The text shown on the input line.
    public var prompt: String {
        hint.isEmpty ? "\(message) " : "\(message) \(hint) "
    }
}

extension TerminalQuestion where Answer == Bool {
    /// A yes/no question; accepts "y", "yes", "n" and "no" in any case.
    ///
    /// ```swift
    /// let question = TerminalQuestion.confirmation("Delete 3 files?", default: false)  // "[y/N]"
    /// ```
    public static func confirmation(_ message: String, default defaultAnswer: Bool? = nil) -> Self {
        let hint =
            switch defaultAnswer {
            case true?: "[Y/n]"
            case false?: "[y/N]"
            case nil: "[y/n]"
            }
        return TerminalQuestion(
            message: message,
            hint: hint,
            defaultAnswer: defaultAnswer,
            describe: { $0 ? "yes" : "no" },
            interpret: { line in
                switch line.trimmingWhitespace().lowercased() {
                case "y", "yes": .answer(true)
                case "n", "no": .answer(false)
                default: .invalid(reason: "Please answer \"y\" or \"n\".")
                }
            }
        )
    }
}

extension TerminalQuestion where Answer == String {
    /// A free-text question.
    ///
    /// ```swift
    /// let question = TerminalQuestion.text("Port", default: "8080") {
    ///     Int($0) == nil ? "Please enter a number." : nil
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - message: The question.
    ///   - defaultAnswer: The answer for an empty line, shown as a hint; `nil` for none.
    ///   - validate: Returns why a line is unacceptable, or `nil` to accept it.
    ///     By default any non-empty line is accepted. Surrounding whitespace is removed first.
    public static func text(
        _ message: String,
        default defaultAnswer: String? = nil,
        validate: @escaping @Sendable (String) -> String? = { $0.isEmpty ? "Please enter a value." : nil }
    ) -> Self {
        TerminalQuestion(
            message: message,
            hint: defaultAnswer.map { "[\($0)]" } ?? "",
            defaultAnswer: defaultAnswer,
            interpret: { line in
                let text = line.trimmingWhitespace()
                if let problem = validate(text) { return .invalid(reason: problem) }
                return .answer(text)
            }
        )
    }
}

extension TerminalQuestion where Answer: Equatable {
    /// A choice from a numbered list; accepts the number or the option's label (any case).
    ///
    /// ```swift
    /// let question = TerminalQuestion.choice("Pick a color", options: ["red", "green"], default: "green")
    /// ```
    ///
    /// - Precondition: `options` is not empty, and `defaultAnswer`, if given, is one of them.
    public static func choice(
        _ message: String,
        options: [Answer],
        default defaultAnswer: Answer? = nil,
        label: @escaping @Sendable (Answer) -> String = { "\($0)" }
    ) -> Self {
        precondition(!options.isEmpty, "A choice needs at least one option.")
        let defaultIndex = defaultAnswer.map { answer in
            guard let index = options.firstIndex(of: answer) else {
                preconditionFailure("The default answer must be one of the options.")
            }
            return index
        }
        let details = options.enumerated().map { index, option in
            "  \(index + 1)) \(label(option))" + (index == defaultIndex ? " (default)" : "")
        }
        let labels = options.map { label($0).lowercased() }
        return TerminalQuestion(
            message: message,
            details: details,
            hint: defaultIndex.map { "[1-\(options.count), default \($0 + 1)]" } ?? "[1-\(options.count)]",
            defaultAnswer: defaultAnswer,
            describe: label,
            interpret: { line in
                let text = line.trimmingWhitespace()
                if let number = Int(text), options.indices.contains(number - 1) {
                    return .answer(options[number - 1])
                }
                if let index = labels.firstIndex(of: text.lowercased()) {
                    return .answer(options[index])
                }
                return .invalid(reason: "Please enter a number from 1 to \(options.count).")
            }
        )
    }
}

extension String {
    func trimmingWhitespace() -> String {
        String(drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }
}
