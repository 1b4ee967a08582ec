/// A failure of a command that is not an error of a lower layer: a wrong combination of options,
/// a missing file, a refused confirmation.
struct CommandError: Error, CustomStringConvertible {
    enum Kind {
        /// The command was used wrongly: exit status 2.
        case usage
        /// The command could not do its job: exit status 1.
        case failure
    }

    var kind: Kind
    var description: String

    static func usage(_ message: String) -> CommandError { CommandError(kind: .usage, description: message) }
    static func failure(_ message: String) -> CommandError { CommandError(kind: .failure, description: message) }
}
