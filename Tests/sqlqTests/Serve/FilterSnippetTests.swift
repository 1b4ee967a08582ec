#if HTTP
    import Testing

    @testable import sqlq

    /// The filters the pages link to, read back by the filter parser.
    @Suite("Filter snippets", .onProcessThreads)
    struct FilterSnippetTests {
        /// A quote followed by a combining mark is one `Character`: doubling quotes character by
        /// character left it single, and the parser, which reads scalars, ended the name there.
        @Test("A column name with any quotes reads back as itself", arguments: ["plain", "a\"b", "a\"\u{301}b", "x.y"])
        func columnNamesRoundTrip(column: String) throws {
            let snippet = try #require(FilterSnippet.equals(column, .integer(1)))
            guard case .predicate(.comparison(let name, .equal, _)) = try FilterParser.parse(snippet) else {
                Issue.record("\(snippet) is not a comparison")
                return
            }
            #expect(name.steps.map(\.name) == column.split(separator: ".").map(String.init))
        }
    }
#endif
