/// A row of an import file that cannot be imported: the line and what is wrong with it.
struct ImportError: Error, CustomStringConvertible {
    var file: String
    var line: Int
    var message: String

    var description: String {
        "\(file), line \(line): \(message)\n  nothing was imported"
    }
}
