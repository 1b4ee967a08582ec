extension Statement: RowSource {
    /// The statement's SQL, for the errors of the rows it reads.
    @usableFromInline package var rowSQL: String? { sql }
}

extension BorrowedRow {
    /// The current row of `statement`.
    @inlinable
    init(statement: Statement) {
        self.init(
            source: statement, handle: statement.handle, generationPointer: statement.generationPointer,
            columnCount: statement.columnCount, generation: statement.generation)
    }
}
