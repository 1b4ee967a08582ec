import Testing

@testable import SQLite

/// Keeps rows in its own isolation domain, which only `Sendable` values may enter and leave.
private actor RowKeeper {
    private var rows: [Row] = []

    func keep(_ rows: [Row]) { self.rows += rows }

    func kept() -> [Row] { rows }
}

@Suite("Owned and borrowed rows")
struct RowOwnershipTests {
    @Test("rows from fetchAll are read in a detached task while this task reads them too")
    func rowsCrossIntoDetachedTask() async throws {
        let db = try makeItemsDatabase()
        let rows = try db.fetchAll("SELECT id, title, priority FROM items ORDER BY id")
        let task = Task.detached { () throws -> (titles: [String], rows: [Row]) in
            (try rows.map { try $0["title"] as String }, rows)
        }
        // Still read here after the task took the rows: the compiler allows it for Sendable values only.
        #expect(try rows.map { try $0["priority"] as Int? } == [3, nil, 1])
        let (titles, returned) = try await task.value
        #expect(titles == ["milk", "bread", "eggs"])
        #expect(returned == rows)
        #expect(returned[2].values == [.integer(3), .text("eggs"), .integer(1)])
    }

    @Test("rows fetched on a queue's connection come back through async read and into an actor")
    func rowsCrossIsolation() async throws {
        let queue = try DatabaseQueue()
        try await queue.write { db in
            try db.execute("CREATE TABLE items(id INTEGER PRIMARY KEY, title TEXT NOT NULL)")
            try db.execute("INSERT INTO items(title) VALUES ('milk'), ('bread'), ('eggs')")
        }
        let all = try await queue.read { db in try db.fetchAll(Row.self, "SELECT id, title FROM items ORDER BY id") }
        let one = try await queue.read { db in try db.fetchOne(Row.self, "SELECT title FROM items WHERE id = 2") }
        let collected = try await queue.read { db in
            try db.cursor(Row.self, "SELECT title FROM items WHERE id > 1 ORDER BY id").collect()
        }
        let keeper = RowKeeper()
        await keeper.keep(all)
        await keeper.keep([try #require(one)] + collected)
        let kept = await keeper.kept()
        #expect(try kept.map { try $0["title"] as String } == ["milk", "bread", "eggs", "bread", "bread", "eggs"])
        #expect(try kept[2]["id"] as Int64 == 3)
        #expect(kept[0].columnNames == ["id", "title"])
    }

    @Test("a borrowed row's copy keeps its values after the statement runs again")
    func copyOutlivesTheFetch() throws {
        let db = try makeItemsDatabase()
        let statement = try db.cachedStatement("SELECT id, title FROM items WHERE id >= ? ORDER BY id")
        let copies = try statement.fetchAll(Row.self, [1]) { $0.copy() }
        // The statement now stands on other rows; the copies read none of them.
        #expect(try statement.fetchAll(Int64.self, [3]) { try $0[0] } == [3])
        #expect(
            copies == [
                Row(columnNames: ["id", "title"], values: [1, "milk"]),
                Row(columnNames: ["id", "title"], values: [2, "bread"]),
                Row(columnNames: ["id", "title"], values: [3, "eggs"]),
            ])
    }

    @Test("a copy taken during a cursor's step keeps that row once the cursor steps on")
    func copyOutlivesTheCursorStep() throws {
        struct Keeper: FetchableRow {
            var row: Row
            init(row: BorrowedRow) throws { self.row = row.copy() }
        }
        let db = try makeItemsDatabase()
        let cursor = try db.cursor(Keeper.self, "SELECT title, priority FROM items ORDER BY id")
        let first = try #require(try cursor.next())
        #expect(try cursor.next()?.row["title"] as String? == "bread")
        #expect(try cursor.next() != nil)
        #expect(try cursor.next() == nil)
        #expect(try first.row["title"] as String == "milk")
        #expect(try first.row["priority"] as Int == 3)
        #expect(first.row.description == "[title:'milk' priority:3]")
    }

    @Test("a borrowed row reads by index and by name, and its errors name the column and the SQL")
    func borrowedRowReading() throws {
        struct Probe: FetchableRow {
            var count: Int
            var names: [String]
            var values: [DatabaseValue]
            var title: DatabaseValue?
            var missing: DatabaseValue?
            var hasPriority: Bool
            var titleIndex: Int?
            var description: String
            var outOfRange: RowDecodingError?
            var notFound: RowDecodingError?
            var mismatch: RowDecodingError?

            init(row: BorrowedRow) throws {
                count = row.count
                names = row.columnNames
                values = row.values
                title = row.value(named: "TITLE")
                missing = row.value(named: "nope")
                hasPriority = row.hasColumn("priority")
                titleIndex = row.index(ofColumn: "Title")
                description = row.description
                outOfRange = Self.error { try row[5] as Int }
                notFound = Self.error { try row["nope"] as Int }
                mismatch = Self.error { try row["title"] as Int }
            }

            static func error(_ read: () throws -> Int) -> RowDecodingError? {
                do {
                    _ = try read()
                    return nil
                } catch {
                    return error as? RowDecodingError
                }
            }
        }
        let db = try makeItemsDatabase()
        let sql = "SELECT id, title, priority FROM items WHERE id = 1"
        let probe = try #require(try db.fetchOne(Probe.self, sql))
        #expect(probe.count == 3)
        #expect(probe.names == ["id", "title", "priority"])
        #expect(probe.values == [.integer(1), .text("milk"), .integer(3)])
        #expect(probe.title == .text("milk"))
        #expect(probe.missing == nil)
        #expect(probe.hasPriority)
        #expect(probe.titleIndex == 1)
        #expect(probe.description == "[id:1 title:'milk' priority:3]")
        #expect(probe.outOfRange?.reason == .indexOutOfRange(columnCount: 3))
        #expect(probe.outOfRange?.sql == sql)
        #expect(probe.notFound?.reason == .columnNotFound(available: ["id", "title", "priority"]))
        #expect(probe.mismatch?.reason == .typeMismatch(found: .text("milk")))
        #expect(probe.mismatch?.column == "title")
    }
}
