#if canImport(Glibc)
    import Glibc
#endif

/// ANSI colours and emphasis, or nothing: colour goes only to a terminal, and never when the
/// `NO_COLOR` environment variable is set to a non-empty value (https://no-color.org).
struct TextStyle: Sendable {
    let isEnabled: Bool

    static let plain = TextStyle(isEnabled: false)

    /// The style for text written to `fileDescriptor`.
    static func forDescriptor(_ fileDescriptor: Int32) -> TextStyle {
        TextStyle(isEnabled: isatty(fileDescriptor) == 1 && !colorIsDisabled)
    }

    static var colorIsDisabled: Bool {
        guard let value = getenv("NO_COLOR") else { return false }
        return value.pointee != 0
    }

    func bold(_ text: String) -> String { wrap(text, "1") }
    func dim(_ text: String) -> String { wrap(text, "2") }
    func red(_ text: String) -> String { wrap(text, "1;31") }
    func yellow(_ text: String) -> String { wrap(text, "33") }
    func green(_ text: String) -> String { wrap(text, "32") }

    private func wrap(_ text: String, _ code: String) -> String {
        isEnabled ? "\u{1B}[" + code + "m" + text + "\u{1B}[0m" : text
    }
}
