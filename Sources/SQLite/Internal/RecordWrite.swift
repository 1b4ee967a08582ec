import CSQLite

/// A record bound to the cached statement of one write shape, ready to run.
struct RecordWrite {
    let statement: Statement
    // Unretained: layouts and their SQL live as long as the process (see RecordPlan).
    unowned(unsafe) let layout: RecordLayout
    unowned(unsafe) let sql: WriteSQL
    /// The record's values, when they were collected rather than bound directly.
    let values: [DatabaseValue]?

    /// Steps the statement to the end and returns how many rows it changed, with the rows of a
    /// `RETURNING` clause handed to `row`. A constraint failure becomes a `ConstraintViolation`;
    /// SQLite has then undone the statement.
    func run(_ db: Database, row: ((BorrowedRow) throws -> Void)? = nil) throws -> Int {
        guard let row else { return try statement.runWrite(db, layout: layout) }
        defer { statement.reset() }
        do {
            while try statement.step() { try row(BorrowedRow(statement: statement)) }
        } catch {
            throw ConstraintViolation.mapping(error, table: layout.table)
        }
        return db.changesCount
    }

    /// Binds the values of a `RETURNING` clause after the record's own.
    func bindReturning(_ arguments: [DatabaseValue]) throws {
        for (offset, value) in arguments.enumerated() {
            try statement.bind(value, at: Int32(clamping: sql.recordParameterCount + offset + 1))
        }
    }
}

extension Statement {
    /// Steps a record write without RETURNING to its end and returns how many rows it changed. A
    /// constraint failure becomes a `ConstraintViolation`; SQLite has then undone the statement.
    @usableFromInline
    func runWrite(_ db: Database, layout: RecordLayout) throws -> Int {
        defer { reset() }
        do {
            while try step() {}
        } catch {
            throw ConstraintViolation.mapping(error, table: layout.table)
        }
        return db.changesCount
    }
}

extension PersistableRecord {
    /// Binds the record to the statement of `shape`.
    ///
    /// Records with declared columns write their values straight into the statement; `Encodable`
    /// records are collected first, since their coding keys choose the layout.
    func bindWrite(_ db: Database, _ shape: WriteShape) throws -> RecordWrite {
        let plan = try RecordPlan.of(Self.self)
        if let layout = plan.declared {
            let sql = shape == .insert ? layout.insert : try layout.sql(for: shape)
            let statement = try db.cachedStatement(sql.sql)
            var columns = ColumnEncoder(binding: statement, sql: sql, layout: layout)
            try encode(to: &columns)
            try columns.finish(plan, sql: sql)
            return RecordWrite(statement: statement, layout: layout, sql: sql, values: nil)
        }
        let (layout, values) = try encodedValues(plan)
        return try Self.bindWrite(db, shape, layout: layout, values: values)
    }

    /// Binds collected values to the statement of `shape`.
    static func bindWrite(_ db: Database, _ shape: WriteShape, layout: RecordLayout, values: [DatabaseValue]) throws
        -> RecordWrite
    {
        let sql = try layout.sql(for: shape)
        let statement = try db.cachedStatement(sql.sql)
        if sql.parameters.isEmpty {
            for (position, value) in values.enumerated() {
                try statement.bind(value, at: Int32(clamping: position + 1))
            }
        } else {
            for (position, value) in values.enumerated() where sql.parameters[position] != 0 {
                try statement.bind(value, at: sql.parameters[position])
            }
        }
        return RecordWrite(statement: statement, layout: layout, sql: sql, values: values)
    }

    /// The error for an update that found no row: the record's key, in its table.
    func notFound(_ write: RecordWrite) throws -> RecordNotFound {
        let values = try write.values ?? encodedValues().values
        return RecordNotFound(
            table: write.layout.table, columns: write.layout.keyPositions.map { write.layout.columns[$0] },
            values: write.layout.keyValues(values))
    }
}
