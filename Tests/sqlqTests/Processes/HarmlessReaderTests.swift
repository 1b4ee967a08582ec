#if HTTP
    import ChildProcesses
    import Foundation
    import SQLite
    import Testing

    /// Another program's writes never fail because `sqlq watch` and `sqlq serve` follow the
    /// database, whatever its journal mode: the `sqlite3` shell, which waits for no lock, inserts
    /// row after row while both refetch after every commit.
    @Suite("Readers that never fail a writer", .serialized, .onProcessThreads)
    struct HarmlessReaderTests {
        @Test(
            "150 inserts of the sqlite3 shell while watch and a serve stream follow: none fails",
            arguments: ["delete", "truncate", "persist", "wal"])
        func noWriteFails(journal: String) async throws {
            // Enough rows that each refetch (a facet and a sort over the table) takes a while.
            let database = try TestDatabase.with(
                """
                CREATE TABLE w(id INTEGER PRIMARY KEY, v INTEGER, note TEXT);
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000)
                INSERT INTO w(v, note) SELECT i % 97, printf('row %d of the table', i) FROM n;
                """)
            _ = try Database(path: database.path).fetchOne(String.self, "PRAGMA journal_mode = \(journal)")
            let watch = try RunningCommand([
                "watch", "w", "--facet", "v", "--sort", "-id", "--limit", "3", "--db", database.path,
            ])
            try await watch.output.waitFor("last change at ")
            try await withServer(["--db", database.path]) { server in
                let stream = try await server.events("/w.sse?facet=v&sort=v&size=3")
                _ = try await stream.nextJSON()
                var failures: [String] = []
                for attempt in 1...150 {
                    let (termination, errors) = try SQLiteShell.runWithoutTimeout(
                        database.path, "INSERT INTO w(v, note) VALUES (\(attempt % 97), 'written by the shell')")
                    if termination != .exited(0) { failures.append("write \(attempt): \(errors)") }
                }
                #expect(
                    failures.count == 0, "\(journal): \(failures.count) of 150 writes failed: \(failures.prefix(3))")
                #expect(try database.count("SELECT count(*) FROM w WHERE note = 'written by the shell'") == 150)
                // Both readers still follow: the last insert reaches the stream and the screen.
                var count = 0
                while count != 20150 {
                    let event = try await stream.nextJSON()
                    count = event["count"] as? Int ?? count
                }
                stream.close()
            }
            try await watch.output.waitFor("20150 | ")
            watch.interrupt()
            #expect(try await watch.exitStatus() == 0)
            #expect(try database.read { db in try db.fetchOne(String.self, "PRAGMA integrity_check") } == "ok")
        }
    }
#endif
