import Testing

@testable import SQLCore

/// A `Decodable` record that declares `FetchableRow` and writes nothing more.
private struct Note: FetchableRow, Decodable, Equatable {
    var id: Int64
    var body: String
    var pinned: Bool?
}

/// A type that is both, with its own `init(row:)`.
private struct HandWritten: FetchableRow, Decodable {
    var viaRow: Bool
    init(row: BorrowedRow) throws { viaRow = true }
    init(from decoder: any Decoder) throws { viaRow = false }
}

@Suite("FetchableRow's defaults")
struct FetchableRowTests {
    @Test("a Decodable record decodes the columns its coding keys name, from a row of another source")
    func decodableDefault() throws {
        let row = Row(columnNames: ["body", "ID", "extra"], values: [.text("milk"), .integer(7), .null])
        #expect(try Note(row: BorrowedRow(row)) == Note(id: 7, body: "milk", pinned: nil))
        #expect(try Note(firstRow: BorrowedRow(row)) == Note(id: 7, body: "milk", pinned: nil))
        let missing = Row(columnNames: ["id"], values: [.integer(7)])
        let error = #expect(throws: RowDecodingError.self) { try Note(row: BorrowedRow(missing)) }
        #expect(error?.column == "body")
    }

    @Test("a type with its own init(row:) keeps it, even when it is Decodable too")
    func ownInitWins() throws {
        let row = BorrowedRow(Row(columnNames: ["x"], values: [.integer(1)]))
        #expect(try HandWritten(row: row).viaRow)
        #expect(try HandWritten(firstRow: row)?.viaRow == true)
    }

    @Test("a single value decodes the first column, and is no first row when that column is NULL")
    func singleValues() throws {
        let value = BorrowedRow(Row(columnNames: ["n", "other"], values: [.integer(3), .text("x")]))
        let null = BorrowedRow(Row(columnNames: ["n"], values: [.null]))
        #expect(try Int(row: value) == 3)
        #expect(try Int(firstRow: value) == 3)
        #expect(try Int(firstRow: null) == nil)
        #expect(try Int?(row: null) == .some(nil))
        #expect(try String?(firstRow: null) == nil)
        let nullError = #expect(throws: RowDecodingError.self) { try Int(row: null) }
        #expect(nullError?.reason == .unexpectedNull)
        let text = BorrowedRow(Row(columnNames: ["t"], values: [.text("x")]))
        let mismatch = #expect(throws: RowDecodingError.self) { try Int(firstRow: text) }
        #expect(mismatch?.expectedType == "Int")
    }

    @Test("a row without columns is a typed error for a single value, not a trap")
    func noColumns() throws {
        let empty = BorrowedRow(Row(columnNames: [], values: []))
        let error = #expect(throws: RowDecodingError.self) { try Int(firstRow: empty) }
        #expect(error?.reason == .indexOutOfRange(columnCount: 0))
        #expect(throws: RowDecodingError.self) { try String(row: empty) }
    }
}
