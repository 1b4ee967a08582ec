// Deleting and updating the rows a request selects, in one statement.

extension QueryInterfaceRequest {
    /// Deletes every row the request selects, and returns how many were deleted.
    ///
    /// ```swift
    /// try Item.all().filter(Column("done") == true).deleteAll(db)
    /// try Table("items").filter(Column("list_id") == 3).deleteAll(db)
    /// ```
    ///
    /// The filter chooses the rows. With a limit, the rows are the ones the request would fetch,
    /// in its order: `DELETE … WHERE rowid IN (SELECT rowid … ORDER BY … LIMIT …)`; without a
    /// limit the order does not matter and is left out. Throws `ConstraintViolation` when a
    /// foreign key forbids the delete; nothing is deleted then.
    @discardableResult
    public func deleteAll(_ db: Database) throws -> Int {
        let renderer = SQLRenderer()
        renderer.append("DELETE FROM ")
        renderer.appendIdentifier(tableName)
        renderRowCondition(into: renderer)
        return try run(renderer, db)
    }

    /// Sets columns of every row the request selects, and returns how many rows were updated.
    ///
    /// ```swift
    /// try Item.all().filter(Column("list_id") == 3).updateAll(db, Column("done").set(to: true))
    /// ```
    ///
    /// Rows are chosen as ``deleteAll(_:)`` chooses them. Returns 0 without running anything when
    /// there is nothing to set. Throws `ConstraintViolation` when a new value breaks a
    /// constraint; no row is updated then.
    @discardableResult
    public func updateAll(_ db: Database, _ assignments: ColumnAssignment...) throws -> Int {
        try updateAll(db, assignments)
    }

    /// Sets columns of every row the request selects, and returns how many rows were updated.
    @discardableResult
    public func updateAll(_ db: Database, _ assignments: [ColumnAssignment]) throws -> Int {
        if assignments.isEmpty { return 0 }
        let renderer = SQLRenderer()
        renderer.append("UPDATE ")
        renderer.appendIdentifier(tableName)
        renderer.append(" SET ")
        for (index, assignment) in assignments.enumerated() {
            if index > 0 { renderer.append(", ") }
            renderer.appendIdentifier(assignment.column.name)
            renderer.append(" = ")
            renderer.append(assignment.value)
        }
        renderRowCondition(into: renderer)
        return try run(renderer, db)
    }

    /// The `WHERE` clause that picks the request's rows.
    private func renderRowCondition(into renderer: SQLRenderer) {
        if select.limit != nil {
            // SQLite takes ORDER BY and LIMIT on UPDATE and DELETE only when built with
            // SQLITE_ENABLE_UPDATE_DELETE_LIMIT, which system libraries are not: pick the rows
            // by rowid with the request's own SELECT instead.
            renderer.append(" WHERE rowid IN (")
            var rowids = select
            rowids.selection = [Column("rowid").sqlExpression]
            rowids.render(.all, into: renderer)
            renderer.append(")")
        } else if let predicate = select.predicate {
            renderer.append(" WHERE ")
            renderer.append(predicate)
        }
    }

    private func run(_ renderer: SQLRenderer, _ db: Database) throws -> Int {
        try renderer.checkValues()
        let statement: Statement
        do {
            statement = try db.cachedStatement(utf8: renderer.bytes)
        } catch let error as SQLiteError where select.limit != nil && error.message.contains("rowid") {
            throw PersistenceError.limitNeedsRowID(table: tableName, sql: renderer.sql)
        }
        try statement.bind(renderer.arguments)
        defer { statement.reset() }
        do {
            while try statement.step() {}
        } catch {
            throw ConstraintViolation.mapping(error, table: tableName)
        }
        return db.changesCount
    }
}

extension TableRecord {
    /// Deletes every row of the table, and returns how many were deleted.
    @discardableResult
    public static func deleteAll(_ db: Database) throws -> Int {
        try all().deleteAll(db)
    }

    /// Sets columns of every row of the table, and returns how many rows were updated.
    @discardableResult
    public static func updateAll(_ db: Database, _ assignments: ColumnAssignment...) throws -> Int {
        try all().updateAll(db, assignments)
    }
}
