import ArgumentParser
import SQLite

/// The exit statuses of `sqlq`, and how each error maps to one.
enum ExitStatus {
    /// Success.
    static let success: Int32 = 0
    /// A database or runtime error: the file cannot be opened, SQLite failed, an import row is bad.
    static let failure: Int32 = 1
    /// A usage or parse error: bad options, a malformed filter, an unknown table or column.
    static let usage: Int32 = 2

    /// The status for `error`, thrown while a command ran.
    static func forError(_ error: any Error) -> Int32 {
        switch error {
        case let error as CommandError: error.kind == .usage ? usage : failure
        case is FilterError, is SchemaError, is ValidationError, is DatabaseURLError: usage
        default: failure
        }
    }

    /// The message for `error`: one line, then indented detail lines where they help (the SQL,
    /// the expression with a caret, the columns that exist).
    static func message(for error: any Error) -> String {
        "\(error)"
    }

    /// Writes `error` to standard error as `Error: …` and returns the exit status for it.
    static func report(_ error: any Error) -> Int32 {
        let style = TextStyle.forDescriptor(2)
        let errors = OutputStream(fileDescriptor: 2)
        errors.writeLine(style.red("Error:") + " " + message(for: error))
        errors.flush()
        return forError(error)
    }
}
