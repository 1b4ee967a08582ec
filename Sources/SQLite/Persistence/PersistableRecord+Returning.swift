// Writes that hand back what the database computed.
//
// `insert(_:returning:)` and its siblings add SQL's RETURNING clause to the write: one statement,
// which returns the values as the statement stored them (defaults, generated columns, the rowid).
// `insertAndFetch(_:)` and its siblings fetch the whole row again after the write, in the same
// transaction, so they also see what AFTER triggers changed, which RETURNING does not.

extension PersistableRecord {
    /// Inserts the record and returns `selection` evaluated on the inserted row.
    ///
    /// ```swift
    /// let row = try item.insert(db, returning: Column("id"), Column("created_at"))
    /// let createdAt: Date = try row["created_at"]      // the column's DEFAULT
    /// ```
    ///
    /// Like ``insert(_:)``, it hands a new rowid key to `didInsert(rowID:)`.
    @discardableResult
    public mutating func insert(_ db: Database, returning selection: any SQLExpressible...) throws -> Row {
        try insert(db, returning: selection)
    }

    /// Inserts the record or updates the row with its key, like ``upsert(_:)``, and returns
    /// `selection` evaluated on the row as written.
    @discardableResult
    public mutating func upsert(_ db: Database, returning selection: any SQLExpressible...) throws -> Row {
        try upsert(db, returning: selection)
    }

    /// Updates the record's row, like ``update(_:)``, and returns `selection` evaluated on the
    /// updated row. Throws `RecordNotFound` when no row has the record's key.
    @discardableResult
    public func update(_ db: Database, returning selection: any SQLExpressible...) throws -> Row {
        try update(db, returning: selection)
    }

    /// Runs a write with a RETURNING clause and returns its first row.
    private func writeReturning(
        _ db: Database, _ kind: WriteShape.Kind, _ selection: [any SQLExpressible]
    ) throws -> (RecordWrite, Row?) {
        let renderer = SQLRenderer(capacity: 32)
        if selection.isEmpty { renderer.append("*") }
        for (index, expression) in selection.enumerated() {
            if index > 0 { renderer.append(", ") }
            renderer.append(expression.sqlExpression.fragment)
        }
        let write = try bindWrite(db, WriteShape(kind: kind, returning: renderer.sql))
        try write.bindReturning(renderer.arguments)
        var first: Row?
        _ = try write.run(db) { row in
            if first == nil { first = row.copy() }
        }
        return (write, first)
    }

    /// Runs a write that returns the key, then fetches the row with that key, in one transaction.
    fileprivate func writeAndFetch(
        _ db: Database, _ kind: WriteShape.Kind, fetch: (QueryInterfaceRequest<Self>) throws -> Self?
    ) throws -> Self {
        let key = Self.primaryKey.columns
        func body(_ db: Database) throws -> Self {
            var record = self
            let row: Row
            switch kind {
            case .insert: row = try record.insert(db, returning: key.map(Column.init))
            case .upsert: row = try record.upsert(db, returning: key.map(Column.init))
            case .update, .delete: row = try record.update(db, returning: key.map(Column.init))
            }
            var request = Self.all()
            for (index, column) in key.enumerated() { request = request.filter(Column(column) == row.value(at: index)) }
            guard let fetched = try fetch(request) else {
                // An AFTER trigger deleted the row, or changed its key.
                throw RecordNotFound(table: Self.tableName, columns: key, values: row.values)
            }
            return fetched
        }
        return db.isInTransaction ? try body(db) : try db.transaction(.immediate, body)
    }

    // Variadic parameters cannot be forwarded, hence these array forms.
    fileprivate mutating func insert(_ db: Database, returning selection: [any SQLExpressible]) throws -> Row {
        let (write, row) = try writeReturning(db, .insert, selection)
        if write.layout.hasRowIDKey && row != nil { didInsert(rowID: db.lastInsertedRowID) }
        guard let row else { throw PersistenceError.nothingWritten(table: write.layout.table, sql: write.sql.sql) }
        return row
    }

    fileprivate mutating func upsert(_ db: Database, returning selection: [any SQLExpressible]) throws -> Row {
        let lastRowID = db.lastInsertedRowID
        let (write, row) = try writeReturning(db, .upsert, selection)
        // The update branch leaves the last rowid alone; a new one means a row was inserted.
        if write.layout.hasRowIDKey, db.lastInsertedRowID != lastRowID { didInsert(rowID: db.lastInsertedRowID) }
        guard let row else { throw PersistenceError.nothingWritten(table: write.layout.table, sql: write.sql.sql) }
        return row
    }

    fileprivate func update(_ db: Database, returning selection: [any SQLExpressible]) throws -> Row {
        let (write, row) = try writeReturning(db, .update, selection)
        guard let row else { throw try notFound(write) }
        return row
    }
}

extension PersistableRecord where Self: FetchableRow {
    /// Inserts the record and returns its row as stored, with the values the database computed:
    /// the id, defaults, and changes made by triggers.
    ///
    /// ```swift
    /// let stored = try Item(id: nil, title: "milk").insertAndFetch(db)
    /// stored.id           // set
    /// stored.createdAt    // the column's DEFAULT
    /// ```
    public func insertAndFetch(_ db: Database) throws -> Self {
        try writeAndFetch(db, .insert) { try $0.fetchOne(db) }
    }

    /// Upserts the record and returns its row as stored.
    public func upsertAndFetch(_ db: Database) throws -> Self {
        try writeAndFetch(db, .upsert) { try $0.fetchOne(db) }
    }

    /// Updates the record's row and returns it as stored. Throws `RecordNotFound` when no row
    /// has the record's key.
    public func updateAndFetch(_ db: Database) throws -> Self {
        try writeAndFetch(db, .update) { try $0.fetchOne(db) }
    }
}
