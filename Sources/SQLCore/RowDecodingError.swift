/// A row value could not be decoded into the Swift type that asked for it.
///
/// The description names the column, the expected type and what was found:
///
///     cannot decode column "due" (index 4) as Date: found NULL
///       SQL: SELECT * FROM items
public struct RowDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public enum Reason: Sendable, Hashable {
        /// The column holds NULL and the type is not optional.
        case unexpectedNull
        /// The column holds a value the type cannot represent.
        case typeMismatch(found: DatabaseValue)
        /// No column has that name.
        case columnNotFound(available: [String])
        /// The index is negative, or not less than the number of columns.
        case indexOutOfRange(columnCount: Int)
        /// Anything else, such as a nested container the row cannot provide.
        case other(String)
    }

    /// The column's name, or its key when no column matched.
    public var column: String
    /// The column's index, when known.
    public var index: Int?
    /// The Swift type that was asked for.
    public var expectedType: String
    /// Why decoding failed.
    public var reason: Reason
    /// The SQL of the statement that produced the row, when known.
    public var sql: String?

    /// Creates an error for `column`, for decoders written by hand.
    public init(column: String, index: Int?, expectedType: String, reason: Reason, sql: String? = nil) {
        self.column = column
        self.index = index
        self.expectedType = expectedType
        self.reason = reason
        self.sql = sql
    }

    public var description: String {
        var text = "cannot decode column \"\(column)\""
        if let index { text += " (index \(index))" }
        text += " as \(expectedType): "
        switch reason {
        case .unexpectedNull: text += "found NULL"
        case .typeMismatch(let found): text += "found \(found.storageClass) \(found.abbreviatedDescription)"
        case .columnNotFound(let available):
            text += "no such column; the row has " + available.map { "\"\($0)\"" }.joined(separator: ", ")
        case .indexOutOfRange(let columnCount):
            text += "index out of range: the row has \(columnCount) column\(columnCount == 1 ? "" : "s")"
        case .other(let message): text += message
        }
        if let sql { text += "\n  SQL: \(sql)" }
        return text
    }
}
