#if HTTP
    import ChildProcesses
    import Foundation
    import Testing

    /// The views a server keeps once made, against a real `sqlq serve`.
    @Suite("sqlq serve's table views kept", .serialized, .onProcessThreads)
    struct TableViewCacheTests {
        @Test(
            "A view asked for again follows a change of the schema by another process",
            .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3")))
        func viewsFollowTheSchema() async throws {
            let database = try ServeTests.notesDatabase()
            try await withServer(["--db", database.path]) { server in
                let view = "/notes.json?sort=-stars&facet=folder_id&size=2"
                let first = try await server.request(view).json()
                #expect(first["columns"] as? [String] == ["id", "folder_id", "body", "stars"])
                #expect(try await server.request(view).json()["columns"] as? [String] == first["columns"] as? [String])

                try SQLiteShell.run(database.path, "ALTER TABLE notes ADD COLUMN extra TEXT DEFAULT 'x'")
                let widened = try await server.request(view).json()
                #expect(widened["columns"] as? [String] == ["id", "folder_id", "body", "stars", "extra"])

                // Without its foreign key, folder_id has no labels: a view made before would
                // still look them up.
                #expect((widened["labels"] as? [String: Any])?["folder_id"] != nil, "\(widened)")
                try SQLiteShell.run(
                    database.path,
                    // The view on notes would keep SQLite from renaming a table to notes.
                    "DROP VIEW starred; CREATE TABLE plain AS SELECT id, folder_id, body, stars FROM notes; "
                        + "DROP TABLE notes; ALTER TABLE plain RENAME TO notes")
                let unlinked = try await server.request(view).json()
                #expect(unlinked["columns"] as? [String] == ["id", "folder_id", "body", "stars"])
                #expect((unlinked["labels"] as? [String: Any])?.isEmpty == true, "\(unlinked)")

                try SQLiteShell.run(database.path, "ALTER TABLE notes RENAME COLUMN stars TO rating")
                let renamed = try await server.request(view)
                #expect(renamed.status == 400)
                #expect((try renamed.json()["error"] as? String)?.contains("stars") == true, "\(renamed.body)")
                let page = try await server.request("/notes?sort=-stars")
                #expect(page.status == 400)
            }
        }
    }
#endif
