import Testing

@testable import SQLCore

@Suite("Borrowed rows of other sources")
struct BorrowedRowTests {
    @Test("a row read whole by another source decodes through the same FetchableRow code")
    func ownedBorrowedRow() throws {
        struct Pair: FetchableRow, Equatable {
            var id: Int64
            var title: String?
            init(id: Int64, title: String?) {
                self.id = id
                self.title = title
            }
            init(row: BorrowedRow) throws {
                id = try row["ID"]
                title = try row[1]
            }
        }
        let row = Row(columnNames: ["id", "title"], values: [.integer(7), .null])
        let borrowed = BorrowedRow(row)
        #expect(try Pair(row: borrowed) == Pair(id: 7, title: nil))
        #expect(borrowed.copy() == row)
        #expect(borrowed.count == 2 && borrowed.columnNames == ["id", "title"] && borrowed.value(at: 0) == 7)
        let error = #expect(throws: RowDecodingError.self) { _ = try borrowed[1] as String }
        #expect(error?.column == "title")
        #expect(throws: RowDecodingError.self) { _ = try borrowed[2] as Int }
    }
}
