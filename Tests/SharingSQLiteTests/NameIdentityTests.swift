import Foundation
import Testing

@testable import SharingSQLite

/// The ids of the rows of a query-builder request, as a live reader loads them.
private struct IDs: FetchKeyRequest {
    var request: QueryInterfaceRequest<Row>
    func fetch(_ db: Database) throws -> [Int64] {
        try request.select(Column("id")).sort(Column("id")).asRequest(of: Int64.self).fetchAll(db)
    }
}

/// Every row of a query-builder request, sorted by id.
private struct Rows: FetchKeyRequest {
    var request: QueryInterfaceRequest<Row>
    func fetch(_ db: Database) throws -> [Row] {
        try request.sort(Column("id")).fetchAll(db)
    }
}

/// Live values whose identity, or whose tables and columns, SQLite tells apart by bytes where
/// Swift's `String` would not: text in two Unicode normalizations, names that differ in the case
/// of non-ASCII letters, a view defined again over another table.
@Suite struct NameIdentityTests {
    private static let composed = "\u{E9}"
    private static let decomposed = "e\u{301}"

    @Test func requestsThatDifferOnlyInNormalizationAreTwoQueries() async throws {
        let db = try DatabaseQueue()
        try await db.write { db in
            try db.execute("CREATE TABLE names(id INTEGER PRIMARY KEY, name TEXT)")
            try db.execute("INSERT INTO names VALUES (1, ?), (2, ?)", [.text(Self.composed), .text(Self.decomposed)])
        }
        let requests = [Self.composed, Self.decomposed].map {
            IDs(request: Table("names").filter(Column("name") == $0))
        }
        #expect(requests[0] != requests[1])
        let readers = requests.map { _ in SharedReader<[Int64]>(value: []) }
        for (reader, request) in zip(readers, requests) { try await reader.load(.fetch(request, database: db)) }
        for (reader, request) in zip(readers, requests) {
            #expect(reader.wrappedValue == (try await db.read { try request.fetch($0) }))
        }
        #expect(readers.map(\.wrappedValue) == [[1], [2]])

        // SQL keys: the same SQL with arguments in two normalizations.
        let sqlReaders = [Self.composed, Self.decomposed].map { _ in SharedReader<[Int64]>(value: []) }
        for (reader, name) in zip(sqlReaders, [Self.composed, Self.decomposed]) {
            try await reader.load(
                .fetchAll("SELECT id FROM names WHERE name = ? ORDER BY id", arguments: [.text(name)], database: db))
        }
        #expect(sqlReaders.map(\.wrappedValue) == [[1], [2]])
    }

    @Test func tablesThatDifferOnlyInNormalizationAreTwoQueries() async throws {
        let db = try DatabaseQueue()
        let tables = [Self.composed, Self.decomposed]
        // The same column names at other positions, so that one table's layout misreads the other's rows.
        try await db.write { db in
            try db.execute("CREATE TABLE \(String.quotedIdentifier(tables[0]))(id INTEGER PRIMARY KEY, a, flag)")
            try db.execute("CREATE TABLE \(String.quotedIdentifier(tables[1]))(id INTEGER PRIMARY KEY, flag, a)")
            try db.execute("INSERT INTO \(String.quotedIdentifier(tables[0]))(id, flag) VALUES (1, 1)")
            try db.execute("INSERT INTO \(String.quotedIdentifier(tables[1]))(id, flag) VALUES (2, 1)")
        }
        let readers = tables.map { _ in SharedReader<[Int64]>(value: []) }
        for (reader, table) in zip(readers, tables) {
            try await reader.load(.fetch(IDs(request: Table(table).filter(Column("flag") == 1)), database: db))
        }
        #expect(readers.map(\.wrappedValue) == [[1], [2]])
        try await db.write { db in
            try db.execute("INSERT INTO \(String.quotedIdentifier(tables[1]))(id, flag, a) VALUES (3, 1, 'x')")
        }
        try await value(of: readers[1]) { $0 == [2, 3] }
        try await db.write { db in
            try db.execute("INSERT INTO \(String.quotedIdentifier(tables[0]))(id, a, flag) VALUES (4, 'x', 1)")
        }
        try await value(of: readers[0]) { $0 == [1, 4] }
        #expect(readers[1].wrappedValue == [2, 3])
    }

    @Test func aJoinOfTablesThatDifferOnlyInNormalization() async throws {
        let db = try DatabaseQueue()
        let tables = [Self.composed, Self.decomposed].map(String.quotedIdentifier)
        // The same column names at other positions, so that one table's layout misreads the other's rows.
        try await db.write { db in
            try db.execute("CREATE TABLE \(tables[0])(id INTEGER PRIMARY KEY, p, q)")
            try db.execute("CREATE TABLE \(tables[1])(id INTEGER PRIMARY KEY, q, p)")
            try db.execute("INSERT INTO \(tables[0]) VALUES (1, 0, 0)")
            try db.execute("INSERT INTO \(tables[1]) VALUES (1, 0, 0)")
        }
        let sql = "SELECT first.p, second.p FROM \(tables[0]) AS first JOIN \(tables[1]) AS second USING (id)"
        let reader = SharedReader<[Row]>(value: [])
        try await reader.load(.fetchAll(sql, database: db))
        #expect(reader.wrappedValue.map(\.values) == [[0, 0]])
        try await db.write { db in try db.execute("UPDATE \(tables[1]) SET p = 5") }
        try await value(of: reader) { $0.map(\.values) == [[0, 5]] }
        try await db.write { db in try db.execute("UPDATE \(tables[0]) SET p = 6") }
        try await value(of: reader) { $0.map(\.values) == [[6, 5]] }
    }

    @Test func columnsThatDifferOnlyInNormalizationAreTwoColumns() async throws {
        let db = try DatabaseQueue()
        let columns = [Self.composed, Self.decomposed].map(String.quotedIdentifier)
        try await db.write { db in
            try db.execute("CREATE TABLE n(id INTEGER PRIMARY KEY, \(columns[0]), \(columns[1]))")
            try db.execute("INSERT INTO n VALUES (1, 0, 0)")
        }
        let all = SharedReader<[Row]>(value: [])
        try await all.load(.fetch(Rows(request: Table("n").all()), database: db))
        let filtered = SharedReader<[Int64]>(value: [-1])
        try await filtered.load(.fetch(IDs(request: Table("n").filter(Column(Self.decomposed) == 1)), database: db))
        #expect(filtered.wrappedValue == [])
        try await db.write { db in try db.execute("UPDATE n SET \(columns[1]) = 1 WHERE id = 1") }
        try await value(of: all) { rows in rows.first?.values == [1, 0, 1] }
        try await value(of: filtered) { $0 == [1] }
        try await db.write { db in try db.execute("UPDATE n SET \(columns[0]) = 2 WHERE id = 1") }
        try await value(of: all) { rows in rows.first?.values == [1, 2, 1] }
    }

    @Test func columnsThatDifferInNonASCIICaseAreTwoColumns() async throws {
        let db = try DatabaseQueue()
        try await db.write { db in
            try db.execute(#"CREATE TABLE k(id INTEGER PRIMARY KEY, "Ä", "ä")"#)
            try db.execute(#"INSERT INTO k(id, "Ä", "ä") VALUES (1, 1, 0)"#)
        }
        let filtered = SharedReader<[Int64]>(value: [])
        try await filtered.load(.fetch(IDs(request: Table("k").filter(Column("ä") == 1)), database: db))
        let all = SharedReader<[Row]>(value: [])
        try await all.load(.fetch(Rows(request: Table("k").all()), database: db))
        #expect(filtered.wrappedValue == [])
        try await db.write { db in try db.execute(#"INSERT INTO k(id, "Ä", "ä") VALUES (2, 0, 1)"#) }
        try await value(of: filtered) { $0 == [2] }
        try await db.write { db in try db.execute(#"UPDATE k SET "ä" = 5 WHERE id = 1"#) }
        try await value(of: all) { rows in rows.first?.values == [1, 1, 5] }
    }

    @Test func tablesThatDifferInNonASCIICaseAreTwoTables() async throws {
        let db = try DatabaseQueue()
        // The same column names at other positions, so that one table's layout misreads the other's rows.
        try await db.write { db in
            try db.execute(#"CREATE TABLE "Ärger"(id INTEGER PRIMARY KEY, a TEXT, flag INTEGER)"#)
            try db.execute(#"CREATE TABLE "ärger"(id INTEGER PRIMARY KEY, flag INTEGER, a TEXT)"#)
        }
        let upper = SharedReader<[Int64]>(value: [-1])
        try await upper.load(.fetch(IDs(request: Table("Ärger").filter(Column("flag") == 1)), database: db))
        let lower = SharedReader<[Int64]>(value: [-1])
        try await lower.load(.fetch(IDs(request: Table("ärger").filter(Column("flag") == 1)), database: db))
        #expect(upper.wrappedValue == [])
        #expect(lower.wrappedValue == [])
        try await db.write { db in try db.execute(#"INSERT INTO "Ärger"(id, a, flag) VALUES (1, 'x', 1)"#) }
        try await value(of: upper) { $0 == [1] }
        try await db.write { db in try db.execute(#"INSERT INTO "ärger"(id, flag, a) VALUES (7, 1, 'y')"#) }
        try await value(of: lower) { $0 == [7] }
        #expect(upper.wrappedValue == [1])
    }

    /// A view dropped and created again over another table: the reader of the view must follow
    /// the new table, also when it refetches on the connection that cached its statement.
    private func viewRedefinedOverAnotherTable(_ db: any DatabaseWriter) async throws {
        try await db.write { db in
            try db.execute("CREATE TABLE t1(id INTEGER PRIMARY KEY, user_id INTEGER)")
            try db.execute("CREATE TABLE t2(id INTEGER PRIMARY KEY, user_id INTEGER)")
            try db.execute("INSERT INTO t1 VALUES (1, 1)")
            try db.execute("INSERT INTO t2 VALUES (2, 1)")
            try db.execute("CREATE VIEW v AS SELECT id, user_id FROM t1")
        }
        let reader = SharedReader<[Int64]>(value: [])
        try await reader.load(.fetch(IDs(request: Table("v").filter(Column("user_id") == 1)), database: db))
        let sqlReader = SharedReader<[Int64]>(value: [])
        try await sqlReader.load(.fetchAll("SELECT id FROM v ORDER BY id", database: db))
        #expect(reader.wrappedValue == [1])
        #expect(sqlReader.wrappedValue == [1])
        try await db.write { db in
            try db.execute("DROP VIEW v")
            try db.execute("CREATE VIEW v AS SELECT id, user_id FROM t2")
        }
        try await value(of: reader) { $0 == [2] }
        try await value(of: sqlReader) { $0 == [2] }
        try await db.write { db in try db.execute("INSERT INTO t2 VALUES (3, 1)") }
        try await value(of: reader) { $0 == [2, 3] }
        try await value(of: sqlReader) { $0 == [2, 3] }
        try await db.write { db in try db.execute("INSERT INTO t1 VALUES (4, 1)") }
        try await db.write { db in try db.execute("INSERT INTO t2 VALUES (5, 1)") }
        try await value(of: reader) { $0 == [2, 3, 5] }
        try await value(of: sqlReader) { $0 == [2, 3, 5] }
    }

    @Test func aViewRedefinedOverAnotherTableOnAQueue() async throws {
        try await viewRedefinedOverAnotherTable(try DatabaseQueue())
    }

    @Test func aViewRedefinedOverAnotherTableOnAPoolWithOneReader() async throws {
        try await viewRedefinedOverAnotherTable(try DatabasePool(path: temporaryDatabasePath(), maximumReaderCount: 1))
    }
}
