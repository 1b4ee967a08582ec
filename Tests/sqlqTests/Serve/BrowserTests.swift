#if HTTP
    import ChildProcesses
    import Foundation
    import Testing

    /// The pages in a real browser, headless Chromium: the form, the facets, the foreign-key
    /// labels, escaping, and the live update a write of another process brings.
    @Suite("sqlq serve in a browser", .serialized, .onProcessThreads)
    struct BrowserTests {
        @Test(
            "A filtered, faceted table page shows a row the sqlite3 shell inserts within 2 s, without a reload",
            .enabled(
                if: WebDriver.isInstalled,
                "needs headless Chromium: apt-get install chromium chromium-driver (CI installs them)"))
        func liveTablePage() async throws {
            let database = try ServeTests.notesDatabase()
            try await withServer(["--db", database.path]) { server in
                let browser = try await WebDriver()
                let result = await Result {
                    // A page is ready once its stream is open and its first update taken in.
                    let ready =
                        "document.getElementById('live-indicator').className === 'live' && document.body.dataset.liveUpdates >= 1"
                    try await browser.open(server.base + "/notes")
                    #expect(try await browser.waitUntil(ready))
                    // The markup in a cell is text: no image element, no alert.
                    #expect(
                        try await browser.text("#rows tr[data-key=\"2\"] td:nth-child(3)")
                            == "\"quoted' & <img src=x onerror=alert(1)>")
                    #expect(try await browser.executeAsync("arguments[0](document.images.length)") as? Int == 0)
                    #expect(try await browser.hasAlert() == false)

                    // A filter typed in the form, then a facet added, then a facet value clicked.
                    try await browser.type("stars >= 0", into: "input[name=where]")
                    try await browser.type(
                        "folder_id", into: "input[name=facet]:not([type=hidden])")
                    try await browser.click("button[type=submit]")
                    // A plain GET form: the empty fields come along, and are ignored.
                    #expect(
                        try await browser.waitUntil(
                            "location.search.includes('where=stars+%3E%3D+0&') && location.search.endsWith('&facet=folder_id') && "
                                + ready))
                    try await browser.click("#facets a")
                    #expect(try await browser.waitUntil("location.search.includes('%22folder_id%22') && " + ready))
                    #expect(try await browser.text("#count") == "2 rows match")

                    // Live: a row the shell inserts appears, and the facet's count changes, within
                    // 2 s, without a reload.
                    try await browser.executeAsync("window.sqlqMarker = 1; arguments[0]()")
                    try SQLiteShell.run(database.path, "INSERT INTO notes VALUES (9, 1, 'from the shell', 2)")
                    #expect(
                        try await browser.waitUntil(
                            "document.getElementById('rows').textContent.includes('from the shell') && "
                                + "document.querySelector('#facets .count').textContent === '3'", within: 2_000))
                    // The count was replaced, not edited: found again.
                    #expect(try await browser.text("#count") == "3 rows match")
                    #expect(try await browser.exists("tr.changed[data-key=\"9\"]"))
                    // The same page, not a reload.
                    #expect(try await browser.executeAsync("arguments[0](window.sqlqMarker)") as? Int == 1)
                    // The facet shows the foreign key's label, after the update too. (Checked in
                    // the page at once: an update may replace an element between two commands.)
                    #expect(
                        try await browser.waitUntil("document.querySelector('#facets a.label').textContent === 'Inbox'")
                    )

                    // The column picker: body unticked, and gone; the filter and the facet stay.
                    try await browser.click("#columns input[value=body]")
                    try await browser.click("#columns button[type=submit]")
                    #expect(
                        try await browser.waitUntil(
                            "location.search.endsWith('&columns=id&columns=folder_id&columns=stars') && " + ready))
                    #expect(
                        try await browser.waitUntil(
                            "!document.querySelector('#rows thead').textContent.includes('body') && "
                                + "document.getElementById('count').textContent === '3 rows match' && "
                                + "document.querySelector('#facets .count').textContent === '3' && "
                                + "!document.querySelector('#columns input[value=body]').checked"))

                    // A foreign key's label leads to the parent row, which counts the rows that refer to it.
                    try await browser.click("#rows a.label")
                    #expect(try await browser.url.hasSuffix("/folders/1"))
                    #expect(
                        try await browser.text("#referrers li")
                            == "3 rows of notes through folder_id")
                }
                try await browser.quit()
                try result.get()
            }
        }
    }
#endif
