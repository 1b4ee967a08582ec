import CSQLite

/// A table's columns as the pre-update hook reports its rows: ASCII-lowercased names, and what
/// comparing each needs.
struct RowLayout {
    var names: [String]
    var traits: [RowFilter.ColumnTraits]
    var encoding: RowFilter.TextEncoding
}

extension Database {
    /// The shape of `table` as the pre-update hook reports its rows, with what comparing its
    /// columns needs; nil when its rows are not reported one by one (a view, a virtual table,
    /// generated or hidden columns, a temporary table of the same name).
    func rowLayout(of table: String) throws -> RowLayout? {
        let version = try fetchOne(Int64.self, "PRAGMA schema_version") ?? 0
        if let cached = regionTrace.rowLayouts[ExactString(table)], cached.schemaVersion == version {
            return cached.layout
        }
        let layout = try readRowLayout(of: table)
        regionTrace.rowLayouts[ExactString(table)] = (version, layout)
        return layout
    }

    private func readRowLayout(of table: String) throws -> RowLayout? {
        let kind = try fetchOne(
            """
            SELECT (SELECT count(*) FROM main.sqlite_schema WHERE type = 'table' AND name = ?1 COLLATE NOCASE \
            AND sql NOT LIKE 'CREATE VIRTUAL%'), (SELECT count(*) FROM temp.sqlite_schema WHERE name = ?1 COLLATE NOCASE)
            """, [.text(table)])
        guard let kind, try kind[0] as Int == 1, try kind[1] as Int == 0 else { return nil }
        // Regions and changes key tables by Swift strings, which merge two names that differ only
        // in Unicode normalization: such tables are read whole, never through one's layout.
        let folded = table.sqliteFolded
        let tables = try fetchAll(String.self, "SELECT name FROM main.sqlite_schema WHERE type IN ('table', 'view')")
        guard !tables.contains(where: { $0.sqliteFolded == folded && !$0.sqliteNameMatches(table) }) else { return nil }
        // The PRAGMA statement rather than the table-valued function, which SQLite's authorizer
        // reports as a write. The name comes from the authorizer, and is quoted.
        let columns = try fetchAll("PRAGMA main.table_xinfo(\(String.quotedIdentifier(table)))")
        guard !columns.isEmpty, try columns.allSatisfy({ try ($0[6] as Int) == 0 }) else { return nil }
        let encoding: RowFilter.TextEncoding
        switch try fetchOne(String.self, "PRAGMA main.encoding") {
        case "UTF-8": encoding = .utf8
        case "UTF-16le": encoding = .utf16le
        case "UTF-16be": encoding = .utf16be
        default: return nil
        }
        var names: [String] = []
        var traits: [RowFilter.ColumnTraits] = []
        for column in columns {
            let name: String = try column[1]
            let defaultValue: String? = try column[4]
            var type: UnsafePointer<CChar>?
            var collation: UnsafePointer<CChar>?
            guard
                sqlite3_table_column_metadata(handle, "main", table, name, &type, &collation, nil, nil, nil)
                    == SQLITE_OK
            else { return nil }
            names.append(name.sqliteFolded)
            traits.append(
                RowFilter.ColumnTraits(
                    affinity: RowFilter.Affinity(declaredType: type.map { String(cString: $0) } ?? ""),
                    isBinary: collation.map { String(cString: $0).sqliteFolded == "binary" } ?? true,
                    nullMayBeDefault: defaultValue.map { $0.sqliteFolded != "null" } ?? false))
        }
        return RowLayout(names: names, traits: traits, encoding: encoding)
    }

    /// The scope of `table` for a query that reads `columns` of it, in the rows that may match
    /// one of `filters` (every row when nil). Nil when the table's rows cannot be tested.
    func rowScope(of table: String, columns: DatabaseRegion.Columns, filters: [SQLExpression]?) throws -> RowScope? {
        guard let layout = try rowLayout(of: table) else { return nil }
        func index(_ name: String) -> Int? {
            let folded = name.sqliteFolded
            return layout.names.firstIndex { $0.hasSameBytes(as: folded) }
        }
        var readColumns: Set<Int>?
        if case .only(let names) = columns {
            var indexes: Set<Int> = []
            for name in names {
                // A column the layout does not know (the rowid by one of its names) reads every column.
                guard index(name) != nil else { return nil }
                // The region's set of names is a Swift `Set`, which keeps one of two names that
                // differ only in Unicode normalization: both columns count as read.
                let folded = name.sqliteFolded
                indexes.formUnion(layout.names.indices.filter { layout.names[$0] == folded })
            }
            readColumns = indexes
        }
        var compiled: [RowFilter]?
        if let filters {
            compiled = []
            for filter in filters {
                guard let node = RowFilterCompiler.compile(filter, columnIndex: index) else {
                    compiled = nil
                    break
                }
                compiled!.append(RowFilter(root: node, columns: layout.traits, encoding: layout.encoding))
            }
        }
        let defaulted = Set(layout.traits.indices.filter { layout.traits[$0].nullMayBeDefault })
        return RowScope(
            columnCount: layout.names.count, readColumns: readColumns, filters: compiled, defaultedColumns: defaulted)
    }
}
