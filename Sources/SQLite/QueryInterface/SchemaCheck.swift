// Checks for names that come from users (the command-line tool's table, filter and sort
// options): an unknown name becomes a SchemaError that lists what exists and suggests the
// closest name, before any query runs.

extension Database {
    /// The tables and views of the main database, in name order, without SQLite's own tables.
    public func tableNames() throws -> [String] {
        try fetchAll(
            String.self,
            """
            SELECT name FROM sqlite_master
            WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'
            ORDER BY name
            """)
    }

    /// The columns of a table or view, in declaration order, generated columns included and the
    /// hidden columns of virtual tables left out, as `SELECT *` shows them. Empty when there is
    /// no such table.
    public func columnNames(in table: String) throws -> [String] {
        try fetchAll(
            String.self, "SELECT name FROM pragma_table_xinfo(?) WHERE hidden <> 1 ORDER BY cid", [.text(table)])
    }

    /// Returns the table's name as the schema spells it, or throws `SchemaError` when there is
    /// no such table or view. Names match ignoring the case of ASCII letters, as SQLite matches them.
    ///
    /// ```swift
    /// try db.checkTable("itemz")   // no such table: "itemz"; did you mean "items"?
    /// ```
    @discardableResult
    public func checkTable(_ name: String) throws -> String {
        let tables = try tableNames()
        if let match = Self.match(name, in: tables) { return match }
        throw SchemaError(
            kind: .unknownTable, name: name, available: tables, suggestion: Self.closest(to: name, in: tables))
    }

    /// Returns the column's name as the schema spells it, or throws `SchemaError` when the table
    /// or the column does not exist.
    @discardableResult
    public func checkColumn(_ name: String, in table: String) throws -> String {
        let table = try checkTable(table)
        return try checkColumn(name, in: table, columns: columnNames(in: table))
    }

    func checkColumn(_ name: String, in table: String, columns: [String]) throws -> String {
        if let match = Self.match(name, in: columns) { return match }
        throw SchemaError(
            kind: .unknownColumn(table: table), name: name, available: columns,
            suggestion: Self.closest(to: name, in: columns))
    }

    /// Checks a table and every column of `columns` against the schema, reading it once.
    func checkSchema(table: String, columns: [String]) throws {
        let table = try checkTable(table)
        let existing = try columnNames(in: table)
        for column in columns {
            _ = try checkColumn(column, in: table, columns: existing)
        }
    }

    /// The exact name first, then one that differs only in ASCII case (SQL identifiers ignore it).
    public static func match(_ name: String, in names: [String]) -> String? {
        names.first { $0.hasSameBytes(as: name) } ?? names.first { $0.sqliteNameMatches(name) }
    }

    /// The name at the smallest edit distance, if it is close enough to be a typo: at most a
    /// third of the longer name's length, and at least 1 (so "titel" finds "title").
    public static func closest(to name: String, in names: [String]) -> String? {
        let target = Array(name.lowercased().unicodeScalars)
        var best: (name: String, distance: Int)?
        for candidate in names {
            let scalars = Array(candidate.lowercased().unicodeScalars)
            let distance = editDistance(target, scalars)
            if distance < (best?.distance ?? .max) { best = (candidate, distance) }
        }
        guard let best else { return nil }
        let allowed = max(2, max(target.count, best.name.unicodeScalars.count) / 3)
        return best.distance <= allowed ? best.name : nil
    }

    /// Levenshtein distance, counting a swap of two neighbours as one edit (optimal string
    /// alignment), since transposed letters are the most common typo.
    static func editDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previousPrevious = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var value = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    value = min(value, previousPrevious[j - 2] + 1)
                }
                current[j] = value
            }
            (previousPrevious, previous, current) = (previous, current, previousPrevious)
        }
        return previous[b.count]
    }
}

extension QueryInterfaceRequest {
    /// Throws `SchemaError` when the request names a table or column the database lacks.
    /// Run it before requests built from user input, so a typo gets a helpful message instead of
    /// SQLite's "no such column".
    ///
    /// ```swift
    /// let request = Table(table).all().filter(Column(column) == value)
    /// try request.checkSchema(db)
    /// ```
    public func checkSchema(_ db: Database) throws {
        let names = identifiers
        try db.checkSchema(table: names.table, columns: names.columns)
    }
}

extension Table {
    /// Throws `SchemaError` when the database has no such table or view.
    public func checkSchema(_ db: Database) throws {
        try db.checkTable(name)
    }
}
