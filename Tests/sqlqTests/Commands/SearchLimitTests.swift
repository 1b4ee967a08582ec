import Foundation
import Testing

@testable import sqlq

/// The size of a search: FTS5 runs a prefix query per word, so a text of thousands of words
/// would take a long time; `--search` and serve's `search=` take at most
/// ``QueryOptions/maximumSearchWords`` words in ``QueryOptions/maximumSearchBytes`` bytes.
@Suite("sqlq query --search: the size of a search", .onProcessThreads)
struct SearchLimitTests {
    static let limit = "a search takes at most 64 words and 1024 bytes"

    @Test("A search of 50,000 words is a usage error giving the limit")
    func hugeSearch() throws {
        let database = try NotesDatabase.make()
        // One letter a word: one argument holds at most 128 KB on Linux.
        let text = Array(repeating: "s", count: 50_000).joined(separator: " ")
        let result = try database.run(["query", "notes", "--search", text])
        #expect(result.status == 2, "\(result.errors.prefix(300))")
        #expect(
            result.errors.hasPrefix("Error: --search: the text is 99999 bytes; \(Self.limit)"),
            "\(result.errors.prefix(300))")
        #expect(result.errors.utf8.count < 1_000, "the message does not repeat the text")
        #expect(result.output.isEmpty)
    }

    @Test("At most 64 words: 64 search, 65 are refused")
    func wordLimit() throws {
        let database = try NotesDatabase.make()
        let most = try database.run([
            "query", "notes", "--search", Array(repeating: "swi", count: 64).joined(separator: " "), "--count",
        ])
        #expect(most.status == 0, "\(most.errors)")
        #expect(most.lines == ["\(try NotesDatabase.matching("swi", in: database).count)"])
        let more = try database.run([
            "query", "notes", "--search", Array(repeating: "swi", count: 65).joined(separator: ", "),
        ])
        #expect(more.status == 2)
        #expect(more.errors.hasPrefix("Error: --search: the text has 65 words; \(Self.limit)"), "\(more.errors)")
    }

    #if HTTP
        @Test("serve's search= takes the same limit, with a 400")
        func serveLimit() async throws {
            let database = try NotesDatabase.make()
            try await withServer(["--db", database.path]) { server in
                let words = Array(repeating: "swi", count: 65).joined(separator: " ")
                let bytes = String(repeating: "swift", count: 300)
                for (text, message) in [
                    (words, "search=: the text has 65 words; \(Self.limit)"),
                    (bytes, "search=: the text is 1500 bytes; \(Self.limit)"),
                ] {
                    let page = try await server.request("/notes?search=" + encoded(text))
                    #expect(page.status == 400)
                    #expect(page.body.contains(message), "\(page.body.prefix(500))")
                    let json = try await server.request("/notes.json?search=" + encoded(text))
                    #expect(json.status == 400)
                    #expect(
                        (try json.json()["error"] as? String)?.contains(message) == true, "\(json.body.prefix(500))")
                }
                let most = try await server.request(
                    "/notes.json?search=" + encoded(Array(repeating: "swi", count: 64).joined(separator: " ")))
                #expect(most.status == 200)
            }
        }
    #endif
}
