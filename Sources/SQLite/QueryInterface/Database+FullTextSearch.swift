import CSQLite

// Full-text indexes and patterns on SQLite's connection: the names checked against the schema,
// and raw patterns checked by FTS5 itself.

extension Database {
    /// Creates `index`: the FTS5 table, the triggers that keep it current, and its contents from
    /// the rows already in the table. For a Swift migration.
    ///
    /// ```swift
    /// try migrator.registerMigration("search") { db in
    ///     try db.create(FullTextIndex("docs_fts", table: "docs", columns: ["title", "body"]))
    /// }
    /// ```
    ///
    /// Throws `SchemaError` when the table or a column does not exist (FTS5 itself would only
    /// fail at the first search), naming what does.
    public func create(_ index: FullTextIndex) throws {
        let table = try checkTable(index.table)
        let existing = try columnNames(in: table)
        for column in index.columns { _ = try checkColumn(column, in: table, columns: existing) }
        if !["rowid", "oid", "_rowid_"].contains(where: { index.contentRowID.sqliteNameMatches($0) }) {
            _ = try checkColumn(index.contentRowID, in: table, columns: existing)
        }
        try executeScript(index.creationSQL)
    }

    /// Refills `index` from its content table: after writes made while its triggers were
    /// missing, or to repair it.
    public func rebuild(_ index: FullTextIndex) throws {
        try execute(index.rebuildSQL)
    }
}

extension FTS5Pattern {
    /// A pattern in FTS5's query syntax, checked by running it on `index`, an FTS5 table of `db`:
    /// the syntax (and any column it names) is that table's.
    ///
    /// ```swift
    /// let pattern = try FTS5Pattern(rawPattern: "title:swift NEAR(actor task, 5)", validatingOn: db, index: "docs_fts")
    /// ```
    ///
    /// Throws `FTS5PatternError` with `FTS5PatternError.Kind.invalidSyntax` carrying
    /// SQLite's message when FTS5 refuses the pattern, and the database's error for anything else
    /// (no such table, say).
    public init(rawPattern: String, validatingOn db: Database, index: String) throws {
        let table = String.quotedIdentifier(index)
        // Prepared apart, so that its errors (no such table) stay the database's: once it is
        // prepared, only the pattern can fail it.
        let statement = try db.cachedStatement(
            "SELECT count(*) FROM (SELECT 1 FROM \(table) WHERE \(table) MATCH ? LIMIT 1)")
        do {
            try statement.bind([.text(rawPattern)])
            _ = try statement.fetchOneBound { try $0[0] as Int64 }
        } catch let error as SQLiteError where error.code == SQLITE_ERROR {
            throw FTS5PatternError(kind: .invalidSyntax(error.message), pattern: rawPattern)
        }
        self.init(rawPattern: rawPattern)
    }
}
