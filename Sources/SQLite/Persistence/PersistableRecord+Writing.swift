// Writing one record. Each write is one statement, so a failure leaves the database as it was;
// each returns how many rows it changed.

extension PersistableRecord {
    /// Inserts the record. When the key is a rowid alias, `didInsert(rowID:)` then receives the
    /// key SQLite stored, so a record inserted with a nil id gets its id.
    ///
    /// ```swift
    /// var item = Item(id: nil, title: "milk")
    /// try item.insert(db)
    /// print(item.id!)          // 1
    /// ```
    ///
    /// Throws `ConstraintViolation` when the row breaks a constraint (a duplicate key, a NULL
    /// in a NOT NULL column…); the table is then unchanged.
    @inlinable
    @discardableResult
    public mutating func insert(_ db: Database) throws -> Int {
        // Inlined so that a loop of inserts binds each value straight from the record's own
        // `encode(to:)`, specialized for its type.
        let plan = try RecordPlan.of(Self.self)
        guard let layout = plan.declared else { return try insertCollected(db) }
        let statement = try db.cachedStatement(layout.insert.sql)
        var columns = ColumnEncoder(binding: statement, sql: layout.insert, layout: layout)
        try encode(to: &columns)
        try columns.finish(plan, sql: layout.insert)
        let changes = try statement.runWrite(db, layout: layout)
        if layout.hasRowIDKey && changes > 0 { didInsert(rowID: db.lastInsertedRowID) }
        return changes
    }

    /// Inserts a record whose values are collected first: an `Encodable` one.
    @usableFromInline
    mutating func insertCollected(_ db: Database) throws -> Int {
        let write = try bindWrite(db, .insert)
        let changes = try write.run(db)
        if write.layout.hasRowIDKey && changes > 0 { didInsert(rowID: db.lastInsertedRowID) }
        return changes
    }

    /// A copy of the record, inserted, with the id SQLite chose: for records held in a `let`.
    ///
    /// ```swift
    /// let item = try Item(id: nil, title: "milk").inserted(db)
    /// ```
    @discardableResult
    public func inserted(_ db: Database) throws -> Self {
        var copy = self
        try copy.insert(db)
        return copy
    }

    /// Updates every column of the record's row but the key. Returns 1.
    ///
    /// Throws `RecordNotFound` when no row has the record's key (it was deleted, or never
    /// inserted), and `ConstraintViolation` when the new values break a constraint.
    @discardableResult
    public func update(_ db: Database) throws -> Int {
        let write = try bindWrite(db, .update)
        let changes = try write.run(db)
        if changes == 0 { throw try notFound(write) }
        return changes
    }

    /// Updates only these columns of the record's row. Key columns are not changed.
    ///
    /// ```swift
    /// item.done = true
    /// try item.update(db, columns: [Column("done")])
    /// ```
    ///
    /// Throws `SchemaError` when a column is not one of the record's, and `RecordNotFound`
    /// when no row has the record's key.
    @discardableResult
    public func update(_ db: Database, columns: [Column]) throws -> Int {
        let layout = try encodedValues().layout
        let write = try bindWrite(db, WriteShape(kind: .update, updated: layout.positions(of: columns)))
        let changes = try write.run(db)
        if changes == 0 { throw try notFound(write) }
        return changes
    }

    /// Updates the columns whose values differ from `previous`, the same record as it was read.
    /// Returns 0 without running anything when nothing changed.
    ///
    /// ```swift
    /// let before = item
    /// item.title = "oat milk"
    /// try item.updateChanges(db, from: before)    // UPDATE "items" SET "title" = ? WHERE "id" = ?
    /// ```
    ///
    /// The row is found by `previous`'s key, so changing the key moves the row. Throws
    /// `RecordNotFound` when no row has that key.
    @discardableResult
    public func updateChanges(_ db: Database, from previous: Self) throws -> Int {
        let (layout, values) = try encodedValues()
        let (previousLayout, previousValues) = try previous.encodedValues()
        let changed: [Int]
        if layout === previousLayout {
            changed = values.indices.filter { values[$0] != previousValues[$0] }
            if changed.isEmpty { return 0 }
        } else {
            // Records of one Encodable type that wrote different columns: set them all.
            changed = Array(values.indices)
        }
        guard !previousLayout.keyPositions.isEmpty else {
            throw PersistenceError.primaryKeyNotEncoded(
                type: previousLayout.typeName, table: previousLayout.table,
                key: previousLayout.primaryKey.columns, columns: previousLayout.columns)
        }
        let previousKey = previousLayout.keyValues(previousValues)
        let sql = try layout.sql(for: WriteShape(kind: .update, updated: changed))
        let statement = try db.cachedStatement(sql.sql)
        var index: Int32 = 1
        for position in sql.setPositions {
            try statement.bind(values[position], at: index)
            index += 1
        }
        for value in previousKey {
            try statement.bind(value, at: index)
            index += 1
        }
        let write = RecordWrite(statement: statement, layout: layout, sql: sql, values: values)
        let changes = try write.run(db)
        if changes == 0 {
            throw RecordNotFound(table: layout.table, columns: layout.primaryKey.columns, values: previousKey)
        }
        return changes
    }

    /// Inserts the record, or updates the row that has its key:
    /// `INSERT … ON CONFLICT (key) DO UPDATE SET …`, one statement. A record inserted with a nil
    /// rowid key gets its id through `didInsert(rowID:)`. Returns 1.
    ///
    /// Only a conflict on the primary key turns into an update; other constraints still throw
    /// `ConstraintViolation`.
    @discardableResult
    public mutating func upsert(_ db: Database) throws -> Int {
        let lastRowID = db.lastInsertedRowID
        let write = try bindWrite(db, .upsert)
        let changes = try write.run(db)
        // The update branch leaves the last rowid alone; a new one means a row was inserted.
        if write.layout.hasRowIDKey, db.lastInsertedRowID != lastRowID { didInsert(rowID: db.lastInsertedRowID) }
        return changes
    }

    /// Inserts a record whose rowid key is nil; otherwise updates the row with its key, and
    /// inserts the record when there is none. Returns 1.
    ///
    /// ```swift
    /// var item = Item(id: nil, title: "milk")
    /// try item.save(db)       // INSERT; item.id is set
    /// item.title = "oat milk"
    /// try item.save(db)       // UPDATE
    /// ```
    ///
    /// When the update finds no row it changed nothing, so if the insert that follows fails, the
    /// database is as it was before `save`.
    @discardableResult
    public mutating func save(_ db: Database) throws -> Int {
        let (layout, values) = try encodedValues()
        if !layout.keyPositions.isEmpty && !(layout.hasRowIDKey && layout.keyValues(values) == [.null]) {
            let update = try Self.bindWrite(db, .update, layout: layout, values: values)
            let changes = try update.run(db)
            if changes > 0 { return changes }
        }
        let insert = try Self.bindWrite(db, .insert, layout: layout, values: values)
        let changes = try insert.run(db)
        if layout.hasRowIDKey && changes > 0 { didInsert(rowID: db.lastInsertedRowID) }
        return changes
    }

    /// Deletes the record's row. Returns 1, or 0 when there was no such row.
    @discardableResult
    public func delete(_ db: Database) throws -> Int {
        try bindWrite(db, .delete).run(db)
    }
}

extension RecordLayout {
    /// The positions of columns named for an update, without key columns (an update never
    /// changes the key). Throws `SchemaError` for a column the record does not have.
    func positions(of named: [Column]) throws -> [Int] {
        var positions: [Int] = []
        for column in named {
            guard let position = Self.position(of: column.name, in: columns) else {
                throw SchemaError(
                    kind: .unknownColumn(table: table), name: column.name, available: columns,
                    suggestion: Database.closest(to: column.name, in: columns))
            }
            if !keyPositions.contains(position) && !positions.contains(position) { positions.append(position) }
        }
        return positions.sorted()
    }
}
