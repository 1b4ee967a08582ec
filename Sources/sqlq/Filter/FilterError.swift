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
        /// Valid, but beyond what SQLite can run: nested too deeply, too many values.
        case limit(String)
    }

    var reason: Reason
    /// The expression as typed.
    var expression: String
    /// Where the culprit starts and how long it is, counted in Unicode scalars of `expression`.
    var position: Int
    var length: Int
    /// The option the expression came from, for the message.
    var option = "--where"

    var message: String {
        switch reason {
        case .syntax(let message), .typeMismatch(let message), .limit(let message): message
        case .unknownColumn(let error): String(error.description.prefix { $0 != "\n" })
        }
    }

    var description: String {
        var text = option + ": " + message + "\n"
        let shown = TableWriter.visible(expression)
        text += "  " + shown + "\n"
        // The caret goes under characters, which is what a terminal shows.
        let scalars = Array(expression.unicodeScalars)
        func characters(_ range: Range<Int>) -> Int {
            var string = String()
            for scalar in scalars[max(0, min(range.lowerBound, scalars.count))..<min(range.upperBound, scalars.count)] {
                string.unicodeScalars.append(scalar)
            }
            return TableWriter.visible(string).count
        }
        let column = characters(0..<position)
        let width = characters(position..<(position + length))
        text += "  " + String(repeating: " ", count: column) + String(repeating: "^", count: max(width, 1))
        if case .unknownColumn(let error) = reason, let newline = error.description.firstIndex(of: "\n") {
            text += error.description[newline...]
        }
        return text
    }
}
