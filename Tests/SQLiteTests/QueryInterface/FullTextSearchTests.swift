import CSQLite
import Foundation
import Testing

@testable import SQLite

private struct Doc: FetchableRow, Equatable {
    var id: Int64
    var title: String
    init(row: BorrowedRow) throws {
        id = try row["id"]
        title = try row["title"]
    }
}

private let docsIndex = FullTextIndex("docs_fts", table: "docs", columns: ["title", "body"], contentRowID: "id")

/// A `docs` table and its full-text index.
private func makeDocsDatabase() throws -> Database {
    let db = try Database()
    try db.execute(
        "CREATE TABLE docs(id INTEGER PRIMARY KEY, title TEXT NOT NULL UNIQUE, body TEXT NOT NULL, views INTEGER)")
    try db.executeScript(
        """
        INSERT INTO docs VALUES (1, 'Swift concurrency', 'actors and tasks, tasks and actors, swift swift', 10);
        INSERT INTO docs VALUES (2, 'Cooking pasta', 'boil water, add swift salt', 5);
        INSERT INTO docs VALUES (3, 'Swift birds', 'the common swift is a bird that flies fast', 7);
        INSERT INTO docs VALUES (4, 'Gardening', 'nothing about birds here', 1);
        """)
    try db.create(docsIndex)
    return db
}

@Suite("Full-text search on SQLite")
struct FullTextSearchTests {
    @Test("bm25 ranks the densest match first, on the index and on the content table")
    func ranking() throws {
        let db = try makeDocsDatabase()
        let pattern = try FTS5Pattern(matching: "swift")
        let onIndex = FullTextSearch(pattern, index: "docs_fts")
        let indexRows = try Table("docs_fts").filter(onIndex).select(Column("rowid")).sort(onIndex.bm25())
            .asRequest(of: Int64.self).fetchAll(db)
        #expect(indexRows == [1, 3, 2])
        let onContent = docsIndex.search(pattern)
        let docs = try QueryInterfaceRequest<Doc>(tableName: "docs").filter(onContent).sort(onContent.bm25())
            .fetchAll(db)
        #expect(docs.map(\.id) == [1, 3, 2])
        // Weights: a match in the title counts far more than one in the body.
        let weighted = try QueryInterfaceRequest<Doc>(tableName: "docs").filter(onContent)
            .sort(onContent.bm25(weights: 100, 0)).fetchAll(db)
        #expect(weighted.map(\.id).prefix(2).sorted() == [1, 3])
        #expect(weighted.last?.id == 2)
        // Combined with an ordinary filter, and counted.
        let popular = QueryInterfaceRequest<Doc>(tableName: "docs").filter(onContent && Column("views") >= 6)
        #expect(try popular.fetchCount(db) == 2)
        #expect(try popular.checkSchema(db) == ())
    }

    @Test("ranking, snippets and highlights on the content table read the index once, not once per match")
    func contentTableCost() throws {
        let db = try Database()
        try db.execute("CREATE TABLE notes(id INTEGER PRIMARY KEY, title TEXT NOT NULL, body TEXT NOT NULL)")
        let index = FullTextIndex("notes_fts", table: "notes", columns: ["title", "body"], contentRowID: "id")
        try db.create(index)
        try db.transaction { db in
            for id in 1...4_000 {
                // Every other note matches `mat*`, with other words and lengths for other scores.
                let word = id % 2 == 0 ? "match\(id % 7)" : "other\(id % 7)"
                try db.execute(
                    "INSERT INTO notes(id, title, body) VALUES (?, ?, ?)",
                    [
                        .integer(Int64(id)), .text("note \(id)"),
                        .text(Array(repeating: word, count: 1 + id % 5).joined(separator: " ")),
                    ])
            }
        }
        let pattern = try FTS5Pattern(matching: "mat", mode: .allPrefixes)
        let onIndex = FullTextSearch(pattern, index: "notes_fts")
        let onContent = index.search(pattern)
        /// The rows of `fetch`, and the pages it read (from the cache or not): what it cost.
        func measured<T>(_ fetch: () throws -> T) throws -> (T, Int32) {
            var current: Int32 = 0
            var highest: Int32 = 0
            sqlite3_db_status(db.handle, SQLITE_DBSTATUS_CACHE_HIT, &current, &highest, 1)
            sqlite3_db_status(db.handle, SQLITE_DBSTATUS_CACHE_MISS, &current, &highest, 1)
            let rows = try fetch()
            var hits: Int32 = 0
            var misses: Int32 = 0
            sqlite3_db_status(db.handle, SQLITE_DBSTATUS_CACHE_HIT, &hits, &highest, 1)
            sqlite3_db_status(db.handle, SQLITE_DBSTATUS_CACHE_MISS, &misses, &highest, 1)
            return (rows, hits + misses)
        }
        let (indexRows, indexPages) = try measured {
            try Table("notes_fts").filter(onIndex)
                .select(Column("rowid"), onIndex.snippet(column: 1, tokens: 3), onIndex.highlight(column: 0))
                .sort(onIndex.bm25(), Column("rowid")).fetchAll(db)
        }
        let (contentRows, contentPages) = try measured {
            try Table("notes").filter(onContent)
                .select(Column("id"), onContent.snippet(column: 1, tokens: 3), onContent.highlight(column: 0))
                .sort(onContent.bm25(), Column("id")).fetchAll(db)
        }
        #expect(indexRows.count == 2_000)
        #expect(contentRows.map(\.values) == indexRows.map(\.values))
        // Looking each row up among the matches costs about twice the search on the index (2.3×
        // here); searching again for each row cost 20× here, and grows with the square of the
        // matches.
        #expect(contentPages < 4 * indexPages, "\(contentPages) pages against \(indexPages) on the index")
    }

    /// A quote followed by a combining mark is one `Character`: quoting by characters left that
    /// quote single in the index's `content=` option, which then named no table.
    @Test("An index of a table whose name holds a quote and a combining mark is made and searched")
    func quoteAndCombiningMarkInATableName() throws {
        let db = try Database()
        let table = "notes'\u{301}x"
        try db.execute("CREATE TABLE \(String.quotedIdentifier(table))(id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
        try db.execute("INSERT INTO \(String.quotedIdentifier(table))(body) VALUES ('a bird'), ('a cat')")
        let index = FullTextIndex("notes_fts", table: table, columns: ["body"])
        try db.create(index)
        let found = try Table(table).filter(index.search(try FTS5Pattern(matching: "bird"))).select(Column("id"))
            .fetchAll(db)
        #expect(found.map { try! $0[0] as Int } == [1])
    }

    @Test("snippet and highlight mark the matched terms")
    func snippetsAndHighlights() throws {
        let db = try makeDocsDatabase()
        let search = FullTextSearch(try FTS5Pattern(matching: "bird", mode: .allPrefixes), index: "docs_fts")
        let rows = try Table("docs_fts").filter(search)
            .select(
                search.highlight(column: 0, open: "[", close: "]"),
                search.snippet(column: 1, open: "[", close: "]", ellipsis: "...", tokens: 4)
            )
            .sort(Column("rowid")).fetchAll(db)
        #expect(rows.map { try! $0[0] as String } == ["Swift [birds]", "Gardening"])
        #expect(rows.map { try! $0[1] as String } == ["...a [bird] that flies...", "nothing about [birds] here"])
        let onContent = docsIndex.search(try FTS5Pattern(matching: "common swift", mode: .phrase))
        let titles = try Table("docs").filter(onContent)
            .select(Column("title"), onContent.highlight(column: 1, open: "<", close: ">"))
            .fetchAll(db)
        #expect(titles.count == 1)
        #expect(try titles[0][1] as String == "the <common swift> is a bird that flies fast")
    }

    @Test("modes: all tokens, any token, prefixes, phrase")
    func modes() throws {
        let db = try makeDocsDatabase()
        func ids(_ text: String, _ mode: FTS5Pattern.Mode) throws -> [Int64] {
            try Table("docs").filter(docsIndex.search(FTS5Pattern(matching: text, mode: mode)))
                .select(Column("id")).sort(Column("id")).asRequest(of: Int64.self).fetchAll(db)
        }
        #expect(try ids("swift bird", .allTokens) == [3])
        #expect(try ids("pasta birds", .anyToken) == [2, 3, 4])
        #expect(try ids("sw conc", .allPrefixes) == [1])
        #expect(try ids("sw", .allTokens) == [])
        #expect(try ids("tasks and actors", .phrase) == [1])
        #expect(try ids("actors tasks and", .phrase) == [])
        // FTS5 syntax in user text is words: no OR, no column filter, no exclusion.
        #expect(try ids("pasta OR swift", .allTokens) == [])
        #expect(try ids("title:pasta", .allTokens) == [])
        #expect(try ids("swift -bird", .allTokens) == [3])
        #expect(try ids(#"pasta" OR "birds"#, .anyToken) == [2, 3, 4])
    }

    @Test("a raw pattern is checked by FTS5, and its syntax error is a typed error")
    func rawPatterns() throws {
        let db = try makeDocsDatabase()
        let near = try FTS5Pattern(rawPattern: "title:swift NEAR(actors tasks, 3)", validatingOn: db, index: "docs_fts")
        #expect(try Table("docs_fts").filter(FullTextSearch(near, index: "docs_fts")).fetchCount(db) == 1)
        let titleOnly = try FTS5Pattern(rawPattern: "title:actors", validatingOn: db, index: "docs_fts")
        #expect(try Table("docs_fts").filter(FullTextSearch(titleOnly, index: "docs_fts")).fetchCount(db) == 0)
        for bad in [#"swift""#, "AND", "(a", "a:b", "NEAR(a b", "*"] {
            let error = #expect(throws: FTS5PatternError.self) {
                try FTS5Pattern(rawPattern: bad, validatingOn: db, index: "docs_fts")
            }
            guard case .invalidSyntax(let message) = error?.kind else {
                Issue.record("\(bad): \(String(describing: error))")
                continue
            }
            #expect(!message.isEmpty)
            #expect(error?.pattern == bad)
        }
        // Not a pattern problem: the database's own error.
        #expect(throws: SQLiteError.self) { try FTS5Pattern(rawPattern: "a", validatingOn: db, index: "nope") }
    }

    @Test("hostile text always makes a pattern that runs, or the typed error", .timeLimit(.minutes(1)))
    func fuzzedPatterns() throws {
        let db = try makeDocsDatabase()
        var generator = SplitMix64(seed: 0x5EA2C4)
        let pieces = [
            "\"", "\"\"", "*", "NEAR", "NEAR(", "AND", "OR", "NOT", "-", "^", ":", "+", "(", ")", "{", "}", " ", "\t",
            "\n", "'", "\\", "\0", "title:", "body:", "swift", "bird", "é", "e\u{301}", "日本", "🐦", "\u{200B}", "٣",
            "_", ".", ",", "%", "?", "$1", "x", "NEAR/3", "\u{FFFD}", "ß", "İ", "\u{E000}",
        ]
        let modes: [FTS5Pattern.Mode] = [.allTokens, .anyToken, .allPrefixes, .phrase]
        let statement = try db.cachedStatement(#"SELECT count(*) FROM "docs_fts" WHERE "docs_fts" MATCH ?"#)
        var refused = 0
        for _ in 0..<100_000 {
            var text = ""
            for _ in 0..<Int.random(in: 0...8, using: &generator) {
                if Int.random(in: 0..<4, using: &generator) == 0 {
                    text.unicodeScalars.append(
                        Unicode.Scalar(UInt32.random(in: 0...0x2FFF, using: &generator)) ?? "?")
                } else {
                    text += pieces.randomElement(using: &generator)!
                }
            }
            let mode = modes.randomElement(using: &generator)!
            let pattern: FTS5Pattern
            do {
                pattern = try FTS5Pattern(matching: text, mode: mode)
            } catch {
                #expect(error.kind == .noTokens, "\(text.debugDescription)")
                refused += 1
                continue
            }
            do {
                try statement.bind([.text(pattern.rawPattern)])
                _ = try statement.fetchOneBound(decode: { try $0[0] as Int64 })
            } catch {
                Issue.record("\(text.debugDescription) as \(pattern.rawPattern.debugDescription): \(error)")
                return
            }
        }
        // Both outcomes were exercised.
        #expect(refused > 1000 && refused < 50_000)
    }

    @Test("the index follows every kind of write to its table")
    func indexSync() throws {
        let db = try makeDocsDatabase()
        let words = ["swift", "bird", "pasta", "water", "kiwi", "mango", "actors", "fast", "salt", "here"]
        /// Every word's matches against a scan of the table's text.
        func expectInSync(_ step: String) throws {
            let rows = try db.fetchAll("SELECT id, title, body FROM docs")
            for word in words {
                let expected = try rows.filter { row in
                    let text = (try row[1] as String) + " " + (try row[2] as String)
                    return FTS5Pattern.tokens(of: text.lowercased()).contains(word)
                }.map { try $0[0] as Int64 }.sorted()
                let found = try Table("docs").filter(docsIndex.search(FTS5Pattern(matching: word)))
                    .select(Column("id")).sort(Column("id")).asRequest(of: Int64.self).fetchAll(db)
                #expect(found == expected, "\(step): \(word)")
            }
        }
        try expectInSync("created")
        try db.execute("INSERT INTO docs VALUES (5, 'Kiwi', 'a kiwi is a bird', 0)")
        try expectInSync("insert")
        try db.execute("UPDATE docs SET body = 'mango and water' WHERE id = 5")
        try expectInSync("update of an indexed column")
        try db.execute("UPDATE docs SET views = views + 1")
        try expectInSync("update of a column not indexed")
        try db.execute("UPDATE docs SET id = 50 WHERE id = 5")
        try expectInSync("update of the rowid")
        try db.execute("DELETE FROM docs WHERE id = 3")
        try expectInSync("delete")
        try db.execute(
            "INSERT INTO docs VALUES (2, 'Pasta again', 'mango', 0) ON CONFLICT(id) DO UPDATE SET body = excluded.body")
        try expectInSync("upsert")
        // REPLACE deletes the replaced row without delete triggers unless recursive triggers are on.
        try db.execute("PRAGMA recursive_triggers = ON")
        try db.execute("REPLACE INTO docs VALUES (1, 'Kiwi fruit', 'salt', 0)")
        try expectInSync("replace on the rowid")
        try db.execute("REPLACE INTO docs VALUES (7, 'Gardening', 'fast water', 0)")
        try expectInSync("replace on another unique column")
        // Rows written while the triggers were away, then a rebuild.
        try db.execute(#"DROP TRIGGER "docs_fts_ai""#)
        try db.execute("INSERT INTO docs VALUES (8, 'Late', 'kiwi here', 0)")
        try db.rebuild(docsIndex)
        try expectInSync("rebuild")
    }

    @Test("creating an index checks its table and columns")
    func schemaChecks() throws {
        let db = try makeDocsDatabase()
        #expect(
            throws: SchemaError(
                kind: .unknownTable, name: "doc",
                available: [
                    "docs", "docs_fts", "docs_fts_config", "docs_fts_data", "docs_fts_docsize", "docs_fts_idx",
                ], suggestion: "docs")
        ) {
            try db.create(FullTextIndex("f", table: "doc", columns: ["title"]))
        }
        let column = #expect(throws: SchemaError.self) {
            try db.create(FullTextIndex("f", table: "docs", columns: ["title", "bdy"]))
        }
        #expect(column?.suggestion == "body")
        #expect(throws: SchemaError.self) {
            try db.create(FullTextIndex("f", table: "docs", columns: ["title"], contentRowID: "ident"))
        }
        #expect(try db.tableNames().contains("f") == false)
        try db.create(FullTextIndex("f", table: "DOCS", columns: ["Title"], contentRowID: "ROWID"))
        #expect(try Table("f").filter(FullTextSearch(FTS5Pattern(matching: "pasta"), index: "f")).fetchCount(db) == 1)
    }

    @Test("the index from a Swift migration and from SQL text")
    func migrations() throws {
        for useSQL in [false, true] {
            let queue = try DatabaseQueue()
            var migrator = Migrator()
            try migrator.registerMigration(
                "docs",
                sql:
                    "CREATE TABLE docs(id INTEGER PRIMARY KEY, title TEXT, body TEXT); INSERT INTO docs VALUES (1, 'before', 'the index');"
            )
            if useSQL {
                try migrator.registerMigration("search", sql: docsIndex.creationSQL)
            } else {
                try migrator.registerMigration("search") { db in try db.create(docsIndex) }
            }
            try migrator.migrate(queue)
            try queue.write { db in try db.execute("INSERT INTO docs VALUES (2, 'after', 'the index')") }
            let ids = try queue.read { db in
                try Table("docs").filter(docsIndex.search(FTS5Pattern(matching: "index"))).select(Column("id"))
                    .sort(Column("id")).asRequest(of: Int64.self).fetchAll(db)
            }
            #expect(ids == [1, 2])
        }
    }

    @Test("a search's read region never skips rows by its MATCH filter")
    func readRegions() throws {
        let db = try makeDocsDatabase()
        let pattern = try FTS5Pattern(matching: "swift")
        let onIndex = FullTextSearch(pattern, index: "docs_fts")
        let (_, indexRegion) = try db.recordingReadRegion(scopingRows: true) { db in
            try Table("docs_fts").filter(onIndex).fetchAll(db)
        }
        // The index is read whole; the tables FTS5 reads for it (its shadow tables, the content
        // table) by their columns at most.
        #expect(indexRegion.tables.keys.contains("docs_fts"))
        #expect(indexRegion.rowScopes["docs_fts"] == nil)
        #expect(indexRegion.rowScopes.values.allSatisfy { $0.filters == nil })
        let onContent = docsIndex.search(pattern)
        let (_, contentRegion) = try db.recordingReadRegion(scopingRows: true) { db in
            try Table("docs").filter(onContent && Column("views") > 3).fetchAll(db)
        }
        #expect(contentRegion.tables.keys.contains("docs"))
        #expect(contentRegion.tables.keys.contains("docs_fts"))
        #expect(contentRegion.rowScopes["docs_fts"] == nil)
        #expect(contentRegion.rowScopes.values.allSatisfy { $0.filters == nil })
    }
}
