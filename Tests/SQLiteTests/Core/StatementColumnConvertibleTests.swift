import Testing

@testable import SQLite

@Suite("Typed reads straight from a statement")
struct StatementColumnConvertibleTests {
    /// Records which of its two conversions decoded it.
    private struct Probe: StatementColumnConvertible {
        var readStatement: Bool
        var databaseValue: DatabaseValue { .null }
        init?(databaseValue: DatabaseValue) { readStatement = false }
        init?(sqliteStatement statement: OpaquePointer, column: Int32) { readStatement = true }
    }

    private struct ProbeRow: FetchableRow {
        var byIndex: Probe
        var byName: Probe
        init(row: BorrowedRow) throws {
            byIndex = try row[0]
            byName = try row["title"]
        }
    }

    @Test("a typed read of a statement's row, by index and by name, reads the column with the C API")
    func statementRowReadsTheStatement() throws {
        let db = try makeItemsDatabase()
        let rows = try db.fetchAll(ProbeRow.self, "SELECT id, title FROM items")
        #expect(rows.count == 3)
        #expect(rows.allSatisfy { $0.byIndex.readStatement && $0.byName.readStatement })
    }

    @Test("an owned row, and a row another source read whole, convert the value")
    func ownedRowsConvertTheValue() throws {
        let row = Row(columnNames: ["id", "title"], values: [1, "milk"])
        #expect(try (row[0] as Probe).readStatement == false)
        let decoded = try ProbeRow(row: BorrowedRow(row))
        #expect(!decoded.byIndex.readStatement && !decoded.byName.readStatement)
    }

    /// Column `index` read straight from the statement, and converted from its value, agree.
    private static func expectAgreement<T: StatementColumnConvertible & Equatable>(
        _ type: T.Type, _ row: BorrowedRow, _ index: Int, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let direct = try? row[index] as T
        let converted = T(databaseValue: row.value(at: index))
        #expect(
            direct == converted, "\(T.self) from column \(index), \(row.value(at: index))",
            sourceLocation: sourceLocation)
    }

    @Test("each built-in type's read from a statement agrees with its conversion from the value")
    func builtInReadsAgreeWithConversions() throws {
        let db = try Database()
        let sql = """
            SELECT 42, -1, 9223372036854775807, 3.0, 2.5, 1e300, 'text', '', x'0102', x'', NULL, 0, 0.0,
                   4294967296, -9.5e18, 'é'
            """
        let checked = try db.cachedStatement(sql).fetchAll(Int.self) { row in
            for index in 0..<row.count {
                Self.expectAgreement(Int64.self, row, index)
                Self.expectAgreement(Int.self, row, index)
                Self.expectAgreement(Int32.self, row, index)
                Self.expectAgreement(Bool.self, row, index)
                Self.expectAgreement(Double.self, row, index)
                Self.expectAgreement(Float.self, row, index)
                Self.expectAgreement(String.self, row, index)
                Self.expectAgreement(DatabaseValue.self, row, index)
                Self.expectAgreement(Int64?.self, row, index)
                Self.expectAgreement(String?.self, row, index)
                Self.expectAgreement(Double?.self, row, index)
                Self.expectAgreement(Bool?.self, row, index)
            }
            return row.count
        }
        #expect(checked == [16])
    }

    @Test("a failed read from a statement throws the same error as a failed conversion")
    func failedReadThrowsRowDecodingError() throws {
        let db = try makeItemsDatabase()
        let sql = "SELECT title, priority FROM items WHERE title = 'bread'"
        let error = #expect(throws: RowDecodingError.self) {
            try db.cachedStatement(sql).fetchAll(Int.self) { row in try row[1] as Int }
        }
        #expect(error?.reason == .unexpectedNull)
        #expect(error?.column == "priority")
        let mismatch = #expect(throws: RowDecodingError.self) {
            try db.cachedStatement(sql).fetchAll(Int.self) { row in try row["title"] as Int }
        }
        #expect(mismatch?.reason == .typeMismatch(found: "bread"))
        #expect(mismatch?.sql == sql)
    }

    /// The first column of every row, fetched as `T`, and converted from the row's value.
    private static func expectSingleValues<T: DatabaseValueConvertible & Equatable>(
        _ type: T.Type, _ db: Database, _ sql: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let converted = try db.fetchAll(sql).map { T(databaseValue: $0.value(at: 0)) }
        #expect(try db.fetchAll(T.self, sql) == converted.compactMap { $0 }, sourceLocation: sourceLocation)
        let cursor = try db.cursor(T.self, sql)
        var read: [T] = []
        while let value = try cursor.next() { read.append(value) }
        #expect(read == converted.compactMap { $0 }, sourceLocation: sourceLocation)
    }

    @Test("a fetch of single built-in values reads what their conversion gives, and throws where it fails")
    func singleValueFetches() throws {
        let db = try makeItemsDatabase()
        try Self.expectSingleValues(Int.self, db, "SELECT id FROM items")
        try Self.expectSingleValues(Int64.self, db, "SELECT done FROM items")
        try Self.expectSingleValues(String.self, db, "SELECT title FROM items")
        try Self.expectSingleValues(Double.self, db, "SELECT id * 1.5 FROM items")
        try Self.expectSingleValues(Bool.self, db, "SELECT done FROM items")
        try Self.expectSingleValues(Int?.self, db, "SELECT priority FROM items")
        try Self.expectSingleValues(Int.self, db, "SELECT id FROM items WHERE 0")
        let null = #expect(throws: RowDecodingError.self) { try db.fetchAll(Int.self, "SELECT priority FROM items") }
        #expect(null?.reason == .unexpectedNull)
        let text = #expect(throws: RowDecodingError.self) { try db.fetchAll(Double.self, "SELECT title FROM items") }
        #expect(text?.reason == .typeMismatch(found: "milk"))
        let request = try Table("items").all().select(Column("title")).sort(Column("id")).asRequest(of: String.self)
            .fetchAll(db)
        #expect(request == ["milk", "bread", "eggs"])
    }
}
