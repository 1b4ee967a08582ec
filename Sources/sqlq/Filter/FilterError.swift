import SQLite

/// A `--where` expression that cannot be used: bad syntax, a column the table lacks, or a
/// value of the wrong type. The description quotes the expression and underlines the culprit:
///
///     --where: expected a value after ">=", found the end of the expression
///       priority >=
///                  ^
struct FilterError: Error, CustomStringConvertible {
    enum Reason {
        case syntax(String)
        case unknownColumn(SchemaError)
        case typeMismatch(String)
    }

    var reason: Reason
    /// The expression as typed.
    var expression: String
    /// Where the culprit starts, in characters, and how many characters it spans.
    var position: Int
    var length: Int
    /// The option the expression came from, for the message.
    var option = "--where"

    var message: String {
        switch reason {
        case .syntax(let message), .typeMismatch(let message): message
        case .unknownColumn(let error): String(error.description.prefix { $0 != "\n" })
        }
    }

    var description: String {
        var text = option + ": " + message + "\n"
        let shown = TableWriter.visible(expression)
        text += "  " + shown + "\n"
        text += "  " + String(repeating: " ", count: position) + String(repeating: "^", count: max(length, 1))
        if case .unknownColumn(let error) = reason, let newline = error.description.firstIndex(of: "\n") {
            text += error.description[newline...]
        }
        return text
    }
}
