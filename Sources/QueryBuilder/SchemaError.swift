/// A table or column name that the database does not have, typically typed by a user.
///
/// The description says what is missing, suggests the closest existing name, and lists them all:
///
///     no such column: "titel" in table "items"; did you mean "title"?
///       columns of "items": id, title, done, priority
public struct SchemaError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What was not found.
    public enum Kind: Hashable, Sendable {
        /// No table or view has the name.
        case unknownTable
        /// The table has no column with the name.
        case unknownColumn(table: String)
    }

    /// What was not found.
    public var kind: Kind
    /// The name as given.
    public var name: String
    /// The names that do exist: tables and views, or the table's columns.
    public var available: [String]
    /// The existing name closest to ``name`` by edit distance, when one is close enough to be a
    /// likely typo.
    public var suggestion: String?

    /// Creates an error.
    public init(kind: Kind, name: String, available: [String], suggestion: String?) {
        self.kind = kind
        self.name = name
        self.available = available
        self.suggestion = suggestion
    }

    public var description: String {
        var text: String
        let list: String
        switch kind {
        case .unknownTable:
            text = "no such table: \(String.quotedIdentifier(name))"
            list = "tables"
        case .unknownColumn(let table):
            text = "no such column: \(String.quotedIdentifier(name)) in table \(String.quotedIdentifier(table))"
            list = "columns of \(String.quotedIdentifier(table))"
        }
        if let suggestion { text += "; did you mean \(String.quotedIdentifier(suggestion))?" }
        text += "\n  \(list): " + (available.isEmpty ? "(none)" : available.joined(separator: ", "))
        return text
    }
}
