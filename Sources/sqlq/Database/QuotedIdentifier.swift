extension String {
    /// The string as a SQL identifier: in double quotes, with embedded double quotes doubled.
    var quotedIdentifier: String {
        "\"" + split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "\"\"") + "\""
    }
}
