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
        /// A dotted name that cannot follow a column: not a foreign key, or one sqlq cannot follow.
        case foreignKey(String)
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
        case .syntax(let message), .typeMismatch(let message), .limit(let message), .foreignKey(let message): message
        case .unknownColumn(let error): String(error.description.prefix { $0 != "\n" })
        }
    }

    /// The most characters of the expression an error quotes: a long generated filter is shown
    /// around the culprit, with "…" for what is cut.
    static let quotedLength = 100

    var description: String {
        var text = option + ": " + message + "\n"
        // The caret goes under characters, which is what a terminal shows.
        let scalars = Array(expression.unicodeScalars)
        func characters(from lower: Int, to upper: Int) -> String {
            let lower = max(0, min(lower, scalars.count))
            var string = String()
            for scalar in scalars[lower..<max(lower, min(upper, scalars.count))] {
                string.unicodeScalars.append(scalar)
            }
            return TableWriter.visible(string)
        }
        var start = 0
        var end = scalars.count
        if scalars.count > Self.quotedLength {
            start = max(0, min(position - Self.quotedLength / 2, scalars.count - Self.quotedLength))
            end = start + Self.quotedLength
        }
        let lead = start > 0 ? "…" : ""
        text += "  " + lead + characters(from: start, to: end) + (end < scalars.count ? "…" : "") + "\n"
        let column = lead.count + characters(from: start, to: position).count
        let width = characters(from: max(position, start), to: min(position + length, end)).count
        text += "  " + String(repeating: " ", count: column) + String(repeating: "^", count: max(width, 1))
        if case .unknownColumn(let error) = reason, let newline = error.description.firstIndex(of: "\n") {
            text += error.description[newline...]
        }
        return text
    }
}
