import Testing

@testable import SQLite

@Suite struct RowChangeTests {
    @Test func thePreupdateHookIsFoundWhenSQLiteHasIt() {
        #expect((PreupdateHook.functions != nil) == (sqlite3CompileOptionUsed("ENABLE_PREUPDATE_HOOK")))
    }

    @Test func changedRowsAreReportedWithTheirValuesWhileAskedFor() throws {
        try #require(PreupdateHook.functions != nil)
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT, b REAL)")
            try db.execute("CREATE TABLE u(id INTEGER PRIMARY KEY)")
        }
        let tables = ObservedTables(["t", "u"])
        let seen = Box()
        try queue.write { db in
            _ = db.addChangeObserver(observing: tables) { changes in
                seen.values.append((changes.rowChanges(in: "t"), changes.rowChanges(in: "u")))
            }
        }
        try queue.write { db in try db.execute("INSERT INTO t(a, b) VALUES ('x', 1.5)") }
        #expect(seen.values.last?.0 == nil, "rows were recorded while nobody asked for them")
        tables.updateRowTables(["t"])
        try queue.write { db in
            try db.execute("INSERT INTO t(a, b) VALUES ('y', NULL)")
            try db.execute("UPDATE t SET a = 'z' WHERE id = 1")
            try db.execute("DELETE FROM t WHERE id = 2")
            try db.execute("INSERT INTO u DEFAULT VALUES")
        }
        let rows = try #require(seen.values.last?.0)
        #expect(
            rows == [
                DatabaseChanges.RowChange(old: nil, new: [.integer(2), .text("y"), .null]),
                DatabaseChanges.RowChange(
                    old: [.integer(1), .text("x"), .real(1.5)], new: [.integer(1), .text("z"), .real(1.5)]),
                DatabaseChanges.RowChange(old: [.integer(2), .text("y"), .null], new: nil),
            ])
        #expect(seen.values.last?.1 == nil, "rows of a table nobody asked for were reported")
        // A schema change is not reported row by row.
        try queue.write { db in try db.execute("ALTER TABLE t ADD COLUMN c") }
        #expect(seen.values.last?.0 == nil)
    }

    @Test func tablesAskedForUpdatesOnlyReportInsertsAndDeletesWhole() throws {
        try #require(PreupdateHook.functions != nil)
        let queue = try DatabaseQueue()
        try queue.write { db in try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT)") }
        let tables = ObservedTables(["t"])
        tables.updateRowTables(["t"], updatesOnly: ["T"])
        let seen = Box()
        try queue.write { db in
            _ = db.addChangeObserver(observing: tables) { changes in
                seen.values.append((changes.rowChanges(in: "t"), nil))
            }
        }
        try queue.write { db in try db.execute("INSERT INTO t(a) VALUES ('x')") }
        #expect(seen.values.count == 1)
        #expect(seen.values.last?.0 == nil, "an insert into an updates-only table was reported row by row")
        try queue.write { db in try db.execute("UPDATE t SET a = 'y'") }
        #expect(
            seen.values.last?.0 == [
                DatabaseChanges.RowChange(old: [.integer(1), .text("x")], new: [.integer(1), .text("y")])
            ])
        try queue.write { db in
            try db.execute("UPDATE t SET a = 'z'")
            try db.execute("DELETE FROM t")
        }
        #expect(seen.values.count == 3)
        #expect(seen.values.last?.0 == nil, "a delete in an updates-only table was reported row by row")
    }

    @Test func aRowMovedToAnotherRowidIsReportedDeletedAndInserted() throws {
        try #require(PreupdateHook.functions != nil)
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute("CREATE TABLE r(user_id INTEGER, body TEXT)")
            try db.execute("INSERT INTO r VALUES (1, 'a'), (1, 'b')")
        }
        let tables = ObservedTables(["r"])
        tables.updateRowTables(["r"])
        let seen = Box()
        try queue.write { db in
            _ = db.addChangeObserver(observing: tables) { changes in
                seen.values.append((changes.rowChanges(in: "r"), nil))
            }
        }
        // No value changes, yet an unsorted scan now returns the row first.
        try queue.write { db in try db.execute("UPDATE r SET rowid = 0 WHERE rowid = 2") }
        #expect(
            seen.values.last?.0 == [
                DatabaseChanges.RowChange(old: [.integer(1), .text("b")], new: nil),
                DatabaseChanges.RowChange(old: nil, new: [.integer(1), .text("b")]),
            ])
        // Where only updates are recorded, the table is reported whole.
        tables.updateRowTables(["r"], updatesOnly: ["r"])
        try queue.write { db in try db.execute("UPDATE r SET rowid = 5 WHERE rowid = 0") }
        #expect(seen.values.count == 2)
        #expect(seen.values.last?.0 == nil)
    }

    @Test func textOfAUTF16DatabaseIsReadAsStoredOrTheTableIsReportedWhole() throws {
        try #require(PreupdateHook.functions != nil)
        for (encoding, invalid) in [("UTF-16le", "x'00D86100'"), ("UTF-16be", "x'D8000061'")] {
            let queue = try DatabaseQueue()
            try queue.writeWithoutTransaction { db in
                try db.execute("PRAGMA encoding = '\(encoding)'")
                try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT)")
            }
            let tables = ObservedTables(["t"])
            tables.updateRowTables(["t"])
            let seen = Box()
            try queue.write { db in
                _ = db.addChangeObserver(observing: tables) { changes in
                    seen.values.append((changes.rowChanges(in: "t"), nil))
                }
            }
            try queue.write { db in try db.execute("INSERT INTO t(a) VALUES ('\u{101}\u{10061}')") }
            #expect(
                seen.values.last?.0 == [
                    DatabaseChanges.RowChange(old: nil, new: [.integer(1), .text("\u{101}\u{10061}")])
                ])
            // SQLite's conversion to UTF-8 would make the unpaired surrogate and the letter after it
            // one character, U+10061: the row cannot be reported as it is stored.
            try queue.write { db in try db.execute("INSERT INTO t(a) VALUES (CAST(\(invalid) AS TEXT))") }
            #expect(seen.values.count == 2)
            #expect(seen.values.last?.0 == nil, "\(encoding): text not valid in the database's encoding was reported")
        }
    }

    @Test func aRecordedRegionScopesTheRowsOfBuilderFilters() throws {
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute("CREATE TABLE m(id INTEGER PRIMARY KEY, user_id INTEGER, body TEXT)")
        }
        let region = try queue.read { db in
            try db.recordingReadRegion(scopingRows: true) { db in
                try Table("m").filter(Column("user_id") == 7).select(Column("id")).asRequest(of: Int64.self)
                    .fetchAll(db)
            }.1
        }
        let scope = try #require(region.rowScopes["m"])
        #expect(scope.columnCount == 3)
        #expect(scope.filters?.count == 1)
        #expect(scope.filters?.first?.equalityKeys?.column == 1)
        #expect(scope.isAffected(old: nil, new: [.integer(1), .integer(7), .text("x")]))
        #expect(!scope.isAffected(old: nil, new: [.integer(1), .integer(8), .text("x")]))
        // Only `body` changed, which the query does not read.
        #expect(
            !scope.isAffected(
                old: [.integer(1), .integer(7), .text("x")], new: [.integer(1), .integer(7), .text("y")]))
        // Raw SQL on the same table reads it whole.
        let whole = try queue.read { db in
            try db.recordingReadRegion(scopingRows: true) { db in try db.fetchAll("SELECT * FROM m WHERE user_id = 7") }
                .1
        }
        #expect(whole.rowScopes["m"]?.filters == nil)
    }
}

private final class Box: @unchecked Sendable {
    // Only touched on the queue's thread, one write at a time.
    var values: [([DatabaseChanges.RowChange]?, [DatabaseChanges.RowChange]?)] = []
}

private func sqlite3CompileOptionUsed(_ name: String) -> Bool {
    PreupdateHook.compileOptionUsed(name)
}
