import Foundation
import Testing

@testable import SharingSQLite

/// The rows of a builder request over one table, as SQLite returns them.
struct BuilderRows: FetchKeyRequest {
    let table: String
    var filter: SQLExpression?
    var columns: [String]?
    var limit: Int?
    /// Sorted by rowid unless false: an unsorted scan returns rows in rowid order too, but its
    /// result then depends on the rowids, not only on the values.
    var sorted = true

    func fetch(_ db: Database) throws -> [[DatabaseValue]] {
        var request = filter.map { Table(table).filter($0) } ?? QueryInterfaceRequest<Row>(tableName: table)
        if let columns { request = request.select(columns.map { Column($0) }) }
        if sorted { request = request.sort(Column("rowid")) }
        if let limit { request = request.limit(limit) }
        return try request.fetchAll(db).map(\.values)
    }
}

/// True when two results hold the same values as SQLite stores them: text compared by its
/// bytes, reals by their bits, where `DatabaseValue`'s `==` finds canonically equivalent text equal.
func identical(_ lhs: [[DatabaseValue]], _ rhs: [[DatabaseValue]]) -> Bool {
    lhs.count == rhs.count
        && zip(lhs, rhs).allSatisfy { a, b in
            a.count == b.count && zip(a, b).allSatisfy { $0.isIdentical(to: $1) }
        }
}

/// Readers of builder requests on one database, each checked against a fresh fetch after a write.
struct LiveProbe {
    let db: DatabaseQueue
    let sentinel = SharedReader<Int>(value: -1)
    var readers: [(reader: SharedReader<[[DatabaseValue]]>, request: BuilderRows)] = []

    init(_ db: DatabaseQueue) async throws {
        self.db = db
        try await db.write { db in try db.execute("CREATE TABLE IF NOT EXISTS probe_sentinel(n)") }
        try await sentinel.load(.fetchOne("SELECT count(*) FROM probe_sentinel", database: db))
    }

    mutating func watch(_ request: BuilderRows) async throws {
        let reader = SharedReader<[[DatabaseValue]]>(value: [])
        try await reader.load(.fetch(request, database: db))
        readers.append((reader, request))
    }

    /// Runs `sql`, then expects every reader to hold a fresh fetch's rows. The refetches a commit
    /// causes are done once a later load of another query has run, so a stale reader fails at once.
    func write(_ sql: String, _ arguments: [DatabaseValue] = [], sourceLocation: SourceLocation = #_sourceLocation)
        async throws
    {
        let counts = readers.map { $0.reader.fetchCount }
        try await db.write { db in try db.execute(sql, arguments) }
        try await sentinel.load()
        for (index, (reader, request)) in readers.enumerated() {
            let expected = try await db.read { db in try request.fetch(db) }
            if identical(reader.wrappedValue, expected) { continue }
            guard reader.fetchCount != counts[index] else {
                Issue.record(
                    "after \(sql): \(request) was not refetched; it holds \(reader.wrappedValue), a fresh fetch \(expected)",
                    sourceLocation: sourceLocation)
                continue
            }
            // The refetch may still be publishing its value.
            let result = try? await value(of: reader) { identical($0, expected) }
            #expect(
                result != nil, "after \(sql): \(request) holds \(reader.wrappedValue), a fresh fetch \(expected)",
                sourceLocation: sourceLocation)
        }
    }
}

extension RowObservationTests {
    @Test func aColumnAddedWithADefaultIsSeenInRowsStoredBeforeIt() async throws {
        let db = try DatabaseQueue()
        try await db.write { db in
            try db.execute("CREATE TABLE items(id INTEGER PRIMARY KEY, title TEXT)")
            try db.execute("INSERT INTO items(title) VALUES ('a'), ('b'), ('c')")
            try db.execute("ALTER TABLE items ADD COLUMN status TEXT NOT NULL DEFAULT 'open'")
            try db.execute("ALTER TABLE items ADD COLUMN note TEXT DEFAULT 'n'")
        }
        var probe = try await LiveProbe(db)
        try await probe.watch(BuilderRows(table: "items", filter: Column("status") == "open"))
        try await probe.watch(BuilderRows(table: "items", filter: Column("status") != "closed"))
        try await probe.watch(BuilderRows(table: "items", columns: ["id", "note"]))
        try await probe.write("UPDATE items SET status = 'closed' WHERE id = 1")
        try await probe.write("DELETE FROM items WHERE id = 2")
        try await probe.write("UPDATE items SET note = NULL WHERE id = 3")
    }

    @Test func integersBeyondTwoToThe53AreComparedWithRealsExactly() async throws {
        let db = try DatabaseQueue()
        try await db.write { db in try db.execute("CREATE TABLE big(id INTEGER PRIMARY KEY, r REAL, i INTEGER, u)") }
        var probe = try await LiveProbe(db)
        let big: Int64 = 9_007_199_254_740_994
        for column in ["r", "i", "u"] {
            try await probe.watch(BuilderRows(table: "big", filter: Column(column) == big))
            try await probe.watch(BuilderRows(table: "big", filter: Column(column) == Double(big)))
            try await probe.watch(BuilderRows(table: "big", filter: Column(column) > big - 1))
            try await probe.watch(BuilderRows(table: "big", filter: Column(column) < Double(big) + 2))
            try await probe.watch(BuilderRows(table: "big", filter: Column(column).in([big + 1, big])))
        }
        try await probe.write(
            "INSERT INTO big(r, i, u) VALUES (?, ?, ?)", [.integer(big), .integer(big), .integer(big)])
        try await probe.write(
            "INSERT INTO big(r, i, u) VALUES (?, ?, ?)", [.real(Double(big)), .real(Double(big)), .real(Double(big))])
        try await probe.write(
            "UPDATE big SET r = ?, i = ?, u = ? WHERE id = 1",
            [.integer(big + 1), .integer(big + 1), .integer(big + 1)])
        try await probe.write("DELETE FROM big")
    }

    @Test func theSmallestIntegerComparesWithoutTrapping() async throws {
        let db = try DatabaseQueue()
        try await db.write { db in try db.execute("CREATE TABLE x(id INTEGER PRIMARY KEY, i INTEGER, r REAL, u)") }
        var probe = try await LiveProbe(db)
        try await probe.watch(BuilderRows(table: "x", filter: Column("i") > 0.5))
        try await probe.watch(BuilderRows(table: "x", filter: Column("r") == 5))
        try await probe.watch(BuilderRows(table: "x", filter: Column("u") > Int64.min))
        try await probe.watch(BuilderRows(table: "x", filter: Column("u") == -9_223_372_036_854_775_808.0))
        try await probe.write(
            "INSERT INTO x(i, r, u) VALUES (?, ?, ?)",
            [.integer(.min), .real(-9_223_372_036_854_775_808.0), .real(1.5)])
        try await probe.write(
            "INSERT INTO x(i, r, u) VALUES (?, ?, ?)",
            [.integer(.max), .real(9_223_372_036_854_775_808.0), .integer(.min)])
        try await probe.write("UPDATE x SET u = ? WHERE id = 2", [.real(-9_223_372_036_854_775_808.0)])
    }

    @Test func textThatChangesOnlyItsNormalizationRefetches() async throws {
        let db = try DatabaseQueue()
        try await db.write { db in
            try db.execute("CREATE TABLE people(id INTEGER PRIMARY KEY, name TEXT)")
            try db.execute("INSERT INTO people(name) VALUES ('e\u{301}')")
        }
        var probe = try await LiveProbe(db)
        try await probe.watch(BuilderRows(table: "people", filter: Column("name") == "\u{E9}"))
        try await probe.watch(BuilderRows(table: "people", filter: Column("name") != "e\u{301}"))
        try await probe.watch(BuilderRows(table: "people", columns: ["name"]))
        try await probe.write("UPDATE people SET name = '\u{E9}'")
        try await probe.write("UPDATE people SET name = 'e\u{301}'")
    }

    @Test func textIsOrderedInTheEncodingOfAUTF16Database() async throws {
        for encoding in ["UTF-16le", "UTF-16be"] {
            let db = try DatabaseQueue()
            try await db.writeWithoutTransaction { db in
                try db.execute("PRAGMA encoding = '\(encoding)'")
                try db.execute("CREATE TABLE names(id INTEGER PRIMARY KEY, name TEXT)")
            }
            var probe = try await LiveProbe(db)
            try await probe.watch(BuilderRows(table: "names", filter: Column("name") < "b"))
            try await probe.watch(BuilderRows(table: "names", filter: Column("name") > "\u{FF61}"))
            try await probe.watch(BuilderRows(table: "names", filter: Column("name") == "\u{10061}"))
            try await probe.watch(BuilderRows(table: "names", filter: Column("name") != "\u{10061}"))
            try await probe.watch(BuilderRows(table: "names", columns: ["name"]))
            try await probe.write("INSERT INTO names(name) VALUES ('\u{101}')")
            try await probe.write("INSERT INTO names(name) VALUES ('\u{10061}')")
            // Not valid UTF-16: a surrogate followed by a letter.
            try await probe.write(
                encoding == "UTF-16le"
                    ? "INSERT INTO names(name) VALUES (CAST(x'00D86100' AS TEXT))"
                    : "INSERT INTO names(name) VALUES (CAST(x'D8000061' AS TEXT))")
            try await probe.write("UPDATE names SET name = 'a' WHERE id = 1")
        }
    }

    @Test func aRowidChangeUnderAnUnsortedLimitRefetches() async throws {
        let db = try DatabaseQueue()
        try await db.write { db in
            try db.execute("CREATE TABLE r(user_id INTEGER, body TEXT)")
            try db.execute("INSERT INTO r(user_id, body) VALUES (1, 'a'), (1, 'b'), (2, 'c')")
        }
        var probe = try await LiveProbe(db)
        try await probe.watch(BuilderRows(table: "r", filter: Column("user_id") == 1, limit: 1, sorted: false))
        try await probe.watch(BuilderRows(table: "r", columns: ["body"], limit: 1, sorted: false))
        try await probe.write("UPDATE r SET rowid = 0 WHERE rowid = 2")
        try await probe.write("UPDATE r SET rowid = -1 WHERE rowid = 3")
    }
}
