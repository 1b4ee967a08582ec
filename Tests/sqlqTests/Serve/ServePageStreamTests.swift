#if HTTP
    import Foundation
    import Testing

    /// A table page with facets is sent as it is ready: the rows and the count first, then the
    /// facets, which group every matching row, at the end of the same page.
    @Suite("sqlq serve: a table page sent in two parts", .serialized, .onProcessThreads)
    struct ServePageStreamTests {
        @Test("The facets come after the rows in the page, complete, with their links and labels")
        func facetsComeLast() async throws {
            let database = try ServeTests.notesDatabase()
            try await withServer(["--db", database.path]) { server in
                let page = try await server.request("/notes?facet=folder_id&facet=stars")
                #expect(page.status == 200)
                let body = page.body
                let rows = try #require(body.range(of: "<table id=\"rows\""), "\(body)")
                let facets = try #require(body.range(of: "<section id=\"facets\""), "\(body)")
                #expect(rows.upperBound <= facets.lowerBound, "the rows are sent before the facets")
                #expect(body.hasSuffix("</main></body></html>\n"))
                #expect(body.contains("4 rows match"))
                // The facets hold what the JSON of the same view counts, labels included.
                let json = try await server.request("/notes.json?facet=folder_id&facet=stars").json()
                let counted = try #require(json["facets"] as? [String: Any])
                #expect(counted.keys.sorted() == ["folder_id", "stars"])
                let facetHTML = String(body[facets.lowerBound...])
                #expect(facetHTML.contains("Inbox"), "the folder's label: \(facetHTML)")
                #expect(facetHTML.contains("Archive &lt;old&gt;"), "\(facetHTML)")
                for filter in ["%22folder_id%22%20%3D%201", "%22stars%22%20%3D%203"] {
                    #expect(facetHTML.contains("where=\(filter)&amp;facet="), "a link adding \(filter): \(facetHTML)")
                }
                // A view without facets is one part, as before.
                let plain = try await server.request("/notes").body
                #expect(plain.contains("<table id=\"rows\""))
                #expect(plain.hasSuffix("</main></body></html>\n"))
            }
        }

        @Test("Facets that cannot be counted leave the rows and the count, and say why in their place")
        func facetFailureIsShownInThePage() async throws {
            // The facet values hold 36 MB, more than an answer may: the rows (their ids) do not.
            let database = try TestDatabase.with(
                """
                CREATE TABLE big(id INTEGER PRIMARY KEY, data BLOB);
                INSERT INTO big(data) VALUES (zeroblob(12000000)), (zeroblob(12000001)), (zeroblob(12000002));
                """)
            try await withServer(["--db", database.path]) { server in
                let page = try await server.request("/big?columns=id&facet=data")
                #expect(page.status == 200)
                #expect(page.body.contains("3 rows match"), "\(page.body.prefix(2000))")
                #expect(page.body.contains("the facets could not be counted"), "\(page.body.suffix(500))")
                #expect(page.body.contains("more than 32 MB of values"), "\(page.body.suffix(500))")
                #expect(page.body.hasSuffix("</main></body></html>\n"))
                // The JSON of the same view, which is one answer, refuses it whole.
                #expect(try await server.request("/big.json?columns=id&facet=data").status == 413)
            }
        }
    }
#endif
