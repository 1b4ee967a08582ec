import Testing

@testable import SQLite

@Suite("Row indexes")
struct RowIndexTests {
    private struct ThirdColumn: FetchableRow {
        var value: String
        init(row: BorrowedRow) throws { value = try row[2] }
    }

    private struct NegativeColumn: FetchableRow {
        var value: Int
        init(row: BorrowedRow) throws { value = try row[-1] }
    }

    @Test("reading past the last column of a fetched row throws, naming the index, the column count and the SQL")
    func pastTheLastColumn() throws {
        let db = try makeItemsDatabase()
        let sql = "SELECT id, title FROM items"
        let error = #expect(throws: RowDecodingError.self) { try db.fetchAll(ThirdColumn.self, sql) }
        #expect(error?.index == 2)
        #expect(error?.reason == .indexOutOfRange(columnCount: 2))
        #expect(error?.sql == sql)
        #expect(error?.description.contains("index 2") == true)
        #expect(error?.description.contains("2 columns") == true)
        let negative = #expect(throws: RowDecodingError.self) { try db.fetchOne(NegativeColumn.self, sql) }
        #expect(negative?.index == -1)
    }

    @Test("reading past the last column of a copied row throws")
    func ownedRow() throws {
        let db = try makeItemsDatabase()
        let row = try #require(try db.fetchOne("SELECT id, title FROM items"))
        let error = #expect(throws: RowDecodingError.self) { try row[5] as Int }
        #expect(error?.reason == .indexOutOfRange(columnCount: 2))
        let built = Row(columnNames: ["a"], values: [1])
        #expect(throws: RowDecodingError.self) { try built[-3] as Int? }
        #expect(try built[0] as Int == 1)
    }
}
