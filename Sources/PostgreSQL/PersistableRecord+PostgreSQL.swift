import QueryBuilder
import SQLCore
import SQLRecords

// Record writes on PostgreSQL: the same types, layouts and keys as on SQLite, the same errors
// (`ConstraintViolation`, `RecordNotFound`), each write one statement.

extension PersistableRecord {
    /// Inserts the record, and returns how many rows it inserted (1). A NULL rowid key
    /// (`PrimaryKey.rowID`) is left out, for the column's identity or sequence to assign, and
    /// handed to `didInsert(rowID:)`.
    ///
    /// ```swift
    /// var item = Item(id: nil, title: "milk")
    /// try await item.insert(db)   // item.id is set
    /// ```
    @discardableResult
    public mutating func insert(_ db: some PostgreSQLExecutor) async throws -> Int {
        let write = try renderedWrite(.insert, dialect: .postgreSQL)
        guard write.assignsRowID else { return try await db.execute(write.sql, write.arguments) }
        let rows = try await db.fetchAll(write.sql, write.arguments)
        if let row = rows.first { didInsert(rowID: try row[0]) }
        return rows.count
    }

    /// Inserts the record, or updates the row with the same primary key.
    @discardableResult
    public func upsert(_ db: some PostgreSQLExecutor) async throws -> Int {
        let write = try renderedWrite(.upsert, dialect: .postgreSQL)
        return try await db.execute(write.sql, write.arguments)
    }

    /// Updates every column of the row with the record's primary key. Throws `RecordNotFound`
    /// when there is no such row.
    @discardableResult
    public func update(_ db: some PostgreSQLExecutor) async throws -> Int {
        let write = try renderedWrite(.update, dialect: .postgreSQL)
        let changes = try await db.execute(write.sql, write.arguments)
        if changes == 0 {
            throw RecordNotFound(table: write.table, columns: write.keyColumns, values: write.keyValues)
        }
        return changes
    }

    /// Deletes the row with the record's primary key, and returns how many rows it deleted (0
    /// or 1).
    @discardableResult
    public func delete(_ db: some PostgreSQLExecutor) async throws -> Int {
        let write = try renderedWrite(.delete, dialect: .postgreSQL)
        return try await db.execute(write.sql, write.arguments)
    }
}

extension PersistableRecord where Self: FetchableRow {
    /// Inserts the record and returns the row as stored, with what the database filled in
    /// (keys, defaults), through `RETURNING *`.
    public func insertAndFetch(_ db: some PostgreSQLExecutor) async throws -> Self {
        try await writeAndFetch(.insert, db)
    }

    /// Inserts or updates the record and returns the row as stored.
    public func upsertAndFetch(_ db: some PostgreSQLExecutor) async throws -> Self {
        try await writeAndFetch(.upsert, db)
    }

    /// Updates the record and returns the row as stored. Throws `RecordNotFound` when there is no
    /// row with its key.
    public func updateAndFetch(_ db: some PostgreSQLExecutor) async throws -> Self {
        try await writeAndFetch(.update, db)
    }

    private func writeAndFetch(_ kind: RecordWriteKind, _ db: some PostgreSQLExecutor) async throws -> Self {
        let write = try renderedWrite(kind, dialect: .postgreSQL, returningAll: true)
        guard let row = try await db.fetchAll(write.sql, write.arguments).first else {
            throw RecordNotFound(table: write.table, columns: write.keyColumns, values: write.keyValues)
        }
        // A left-out rowid key comes first, before `*`.
        let stored =
            write.assignsRowID
            ? Row(columnNames: Array(row.columnNames.dropFirst()), values: Array(row.values.dropFirst())) : row
        return try Self(row: BorrowedRow(stored))
    }
}
